import { type Static, type TObject, type TSchema, Type } from 'typebox'
import { type McpTool, mcpTool } from '../../http/mcp.ts'
import type { Reconciler } from '../activity-log/reconcile.ts'
import { ActivityList, ListQuery } from '../activity-log/schemas.ts'
import type { ActivityLogService } from '../activity-log/service.ts'
import { DeployBody, DeployStarted, LookupResult } from '../deploy/schemas.ts'
import type { DeployService } from '../deploy/service.ts'
import type { EventContext } from '../events.ts'
import { GenerateBody, GenerationAccepted, WorkItemList } from '../generation/schemas.ts'
import type { GenerationService } from '../generation/service.ts'
import { NotificationList, NotificationListQuery } from '../notifications/schemas.ts'
import type { NotificationService } from '../notifications/service.ts'
import { CreateWorkBody, Work, WorkList, WorkParams } from '../works/schemas.ts'
import type { WorkService } from '../works/service.ts'

/** Who a tool acts for: the API key's user, and where the request came from (for the activity log). */
export interface McpCaller {
  userId: string
  event: EventContext
  /**
   * Throws what the REST route answers an API key that may not use it (403 `API_KEY_NOT_ALLOWED`), so a
   * tool has exactly the rights its route gives the key.
   */
  mayUse(route: string): void
}

export interface PlatformToolServices {
  works: Pick<WorkService, 'list' | 'get' | 'create'>
  generation: Pick<GenerationService, 'start' | 'items'>
  deploy: Pick<DeployService, 'deploy' | 'lookup'>
  activityLog: Pick<ActivityLogService, 'list'>
  reconciler: Pick<Reconciler, 'run'>
  notifications: Pick<NotificationService, 'list'>
}

/** A platform tool: the REST route it stands for (`METHOD /path`), whose access level decides its rights. */
export interface PlatformTool extends McpTool<McpCaller> {
  route: string
}

/** A work id beside a REST body's fields: what a route takes in its path and body, as one input. */
const WorkAndGenerate = Type.Object({ ...WorkParams.properties, ...GenerateBody.properties })
const WorkAndDeploy = Type.Object({ ...WorkParams.properties, ...DeployBody.properties })

const GenerationStatus = Type.Object(
  { workId: WorkParams.properties.id, generateStatus: Work.properties.generateStatus },
  { description: 'Where the work’s generation stands' },
)

function platformTool<Input extends TObject>(
  route: string,
  tool: {
    name: string
    title: string
    description: string
    input: Input
    output: TSchema
    readOnly: boolean
    call(args: Static<Input>, caller: McpCaller): Promise<unknown>
  },
): PlatformTool {
  return {
    ...mcpTool<Input, McpCaller>({
      ...tool,
      call: async (args, caller) => {
        caller.mayUse(route)
        return tool.call(args, caller)
      },
    }),
    route,
  }
}

const NOT_FOUND =
  'A work that does not exist or that you may not see is the error WORK_NOT_FOUND (404), never another ' +
  'account’s data.'
const KEYS_REFUSED =
  'Deployments need an access token: an API key (what this endpoint takes) gets the tool error ' +
  'API_KEY_NOT_ALLOWED (403), as the REST route answers it.'

/** The platform's tools, each the call its REST route makes, for the API key's user. */
export function platformTools(services: PlatformToolServices): PlatformTool[] {
  const { works, generation, deploy, activityLog, reconciler, notifications } = services
  return [
    platformTool('GET /api/works', {
      name: 'list_works',
      title: 'List works',
      description:
        'Lists the works (directory sites) you own and those shared with you, newest first. Each has its id ' +
        '(pass it to the other tools), slug, name, description, your role (owner, editor, viewer) and ' +
        '`generateStatus`. Use it first to find a work’s id. Returns `{works: [...]}`, as GET /api/works.',
      input: Type.Object({}),
      output: WorkList,
      readOnly: true,
      call: async (_, caller) => ({ works: await works.list(caller.userId) }),
    }),
    platformTool('GET /api/works/:id', {
      name: 'get_work',
      title: 'Get a work',
      description:
        'One work by id: name, slug, description, owner, your role, and `generateStatus` (status, item ' +
        `count, recent log lines of the last generation). ${NOT_FOUND} Returns the work, as GET /api/works/:id.`,
      input: WorkParams,
      output: Work,
      readOnly: true,
      call: ({ id }, caller) => works.get(caller.userId, id),
    }),
    platformTool('POST /api/works', {
      name: 'create_work',
      title: 'Create a work',
      description:
        'Creates a work (a directory site) you own, from a name and an optional description and slug ' +
        '(derived from the name when absent; a slug you already use is SLUG_TAKEN, 409). Then call ' +
        'start_generation to fill it with items. Returns the created work, as POST /api/works.',
      input: CreateWorkBody,
      output: Work,
      readOnly: false,
      call: (body, caller) => works.create(caller.userId, body, caller.event),
    }),
    platformTool('POST /api/works/:id/generate', {
      name: 'start_generation',
      title: 'Generate a work’s items',
      description:
        'Starts generating the work’s items with its AI provider plugin, in the background, from an optional ' +
        '`prompt` describing what the directory should list. Returns `{status: "GENERATING"}` at once; poll ' +
        'get_generation until its status is COMPLETED (then list_work_items), ERROR or CANCELLED. Errors: ' +
        'GENERATION_RUNNING (409) while one runs, NO_AI_PROVIDER or PLUGIN_NOT_CONFIGURED (400) when the ' +
        `work has no usable AI provider, WORK_EDIT_FORBIDDEN (403) for a viewer. ${NOT_FOUND}`,
      input: WorkAndGenerate,
      output: GenerationAccepted,
      readOnly: false,
      call: ({ id, prompt }, caller) => generation.start(caller.userId, id, prompt, caller.event),
    }),
    platformTool('GET /api/works/:id', {
      name: 'get_generation',
      title: 'Where a generation stands',
      description:
        'The work’s generation status: PENDING or GENERATING while it runs, then COMPLETED, ERROR or ' +
        'CANCELLED (IDLE when never generated), with the item count and the run’s recent log lines. Poll it ' +
        `after start_generation. ${NOT_FOUND} Returns \`{workId, generateStatus}\`.`,
      input: WorkParams,
      output: GenerationStatus,
      readOnly: true,
      call: async ({ id }, caller) => {
        const work = await works.get(caller.userId, id)
        return { workId: work.id, generateStatus: work.generateStatus }
      },
    }),
    platformTool('GET /api/works/:id/items', {
      name: 'list_work_items',
      title: 'List a work’s items',
      description:
        'The items of the work’s last completed generation (name, description, URL, category, tags, …), in ' +
        `the provider’s order; empty before any. ${NOT_FOUND} Returns \`{items: [...]}\`, as ` +
        'GET /api/works/:id/items.',
      input: WorkParams,
      output: WorkItemList,
      readOnly: true,
      call: async ({ id }, caller) => ({ items: await generation.items(caller.userId, id) }),
    }),
    platformTool('POST /api/deploy/works/:id', {
      name: 'deploy_work',
      title: 'Deploy a work',
      description:
        'Deploys the work to its hosting provider through its GitHub repository, with an optional ' +
        '`teamScope`; verification then follows in the background (get_deployment_status). Owners and ' +
        `editors only. ${KEYS_REFUSED} Returns the started deployment, as POST /api/deploy/works/:id.`,
      input: WorkAndDeploy,
      output: DeployStarted,
      readOnly: false,
      call: ({ id, ...body }, caller) => deploy.deploy(caller.userId, id, body, caller.event),
    }),
    platformTool('POST /api/deploy/works/:id/lookup', {
      name: 'get_deployment_status',
      title: 'A work’s latest deployment',
      description:
        'The work’s latest deployment: its state (INITIALIZING, QUEUED, BUILDING, then READY, ERROR, ' +
        `CANCELED or TIMEOUT), URL and error; \`deployment: null\` when never deployed. ${KEYS_REFUSED}`,
      input: WorkParams,
      output: LookupResult,
      readOnly: true,
      call: ({ id }, caller) => deploy.lookup(caller.userId, id),
    }),
    platformTool('GET /api/activity-log', {
      name: 'list_activity',
      title: 'List activity',
      description:
        'Your account’s activity (works created, generations, deployments, …), newest first, filtered by ' +
        '`actionType`, `workId`, `status`, `dateFrom`/`dateTo` (ISO 8601) or `search` (summary or work ' +
        'name), paged with `limit` (1–100, default 25) and `offset`. Returns `{activities, total}`, as ' +
        'GET /api/activity-log.',
      input: ListQuery,
      output: ActivityList,
      readOnly: true,
      call: async (query, caller) => {
        await reconciler.run(caller.userId)
        return activityLog.list(caller.userId, query)
      },
    }),
    platformTool('GET /api/notifications', {
      name: 'list_notifications',
      title: 'List notifications',
      description:
        'Your in-app notifications (problems to act on: AI credits, generation, security), newest first, ' +
        '`unreadOnly`, `category`, `limit`, `offset`. Notifications belong to a signed-in person: an API ' +
        'key gets the tool error API_KEY_NOT_ALLOWED (403), as the REST route answers it.',
      input: NotificationListQuery,
      output: NotificationList,
      readOnly: true,
      call: (query, caller) => notifications.list(caller.userId, query),
    }),
  ]
}
