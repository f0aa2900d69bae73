import type { App } from '../../http/app.ts'
import { contextOf } from '../http/context.ts'
import { authOf } from '../http/guard.ts'
import { errors } from '../http/schemas.ts'
import { WorkParams } from '../works/schemas.ts'
import { GenerateBody, GenerationAccepted, GenerationCancelled, WorkItemList } from './schemas.ts'
import type { GenerationService } from './service.ts'

const tags = ['works']

export function generationRoutes(app: App, { generation }: { generation: GenerationService }) {
  app.post(
    '/api/works/:id/generate',
    {
      config: { access: 'jwt-or-api-key' },
      schema: {
        tags,
        summary: 'Generate a work’s items',
        description:
          'Asks the work’s active AI provider plugin for the directory’s items, as a background job that ' +
          'survives restarts. The work’s `generateStatus` goes PENDING → GENERATING → COMPLETED, ERROR or ' +
          'CANCELLED, with the run’s recent log lines in `recentLogs`; the completed items replace the ' +
          'previous ones (`GET /api/works/:id/items`). 409 `GENERATION_RUNNING` while a generation runs; ' +
          '400 `NO_AI_PROVIDER` when no AI provider is active for the work, `PLUGIN_NOT_CONFIGURED` when it ' +
          'lacks a required setting (its API key). Edit permission on the work.',
        params: WorkParams,
        body: GenerateBody,
        response: {
          202: GenerationAccepted,
          ...errors(
            [400, 'NO_AI_PROVIDER', 'PLUGIN_NOT_CONFIGURED'],
            401,
            [403, 'WORK_EDIT_FORBIDDEN'],
            [404, 'WORK_NOT_FOUND'],
            [409, 'GENERATION_RUNNING'],
            413,
            415,
          ),
        },
      },
    },
    async (req, reply) =>
      reply
        .code(202)
        .send(await generation.start(authOf(req).userId, req.params.id, req.body?.prompt, contextOf(req))),
  )

  app.post(
    '/api/works/:id/generate/cancel',
    {
      config: { access: 'jwt-or-api-key' },
      schema: {
        tags,
        summary: 'Cancel a generation',
        description:
          'Ends the running generation as CANCELLED: its worker stops at its next step and stores nothing; the ' +
          'previous items stay. 409 `GENERATION_NOT_RUNNING` when none runs. Edit permission on the work.',
        params: WorkParams,
        response: {
          200: GenerationCancelled,
          ...errors(
            401,
            [403, 'WORK_EDIT_FORBIDDEN'],
            [404, 'WORK_NOT_FOUND'],
            [409, 'GENERATION_NOT_RUNNING'],
          ),
        },
      },
    },
    async (req) => generation.cancel(authOf(req).userId, req.params.id),
  )

  app.get(
    '/api/works/:id/items',
    {
      config: { access: 'jwt-or-api-key' },
      schema: {
        tags,
        summary: 'List a work’s items',
        description:
          'The items of the work’s last completed generation, in the provider’s order. Any role may read them.',
        params: WorkParams,
        response: { 200: WorkItemList, ...errors(401, [404, 'WORK_NOT_FOUND']) },
      },
    },
    async (req) => ({ items: await generation.items(authOf(req).userId, req.params.id) }),
  )
}
