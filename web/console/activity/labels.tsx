/** The activity log's vocabulary as the console shows it: each action type and status in words. */
import type { paths } from '../../../packages/client/src/generated/platform.ts'
import type { Option } from '../../shared/ui.tsx'
import type { Answer } from '../api.ts'

/** The list's query, as the API takes it. */
export type ActivityQuery = NonNullable<paths['/api/activity-log']['get']['parameters']['query']>
export type ActionType = NonNullable<ActivityQuery['actionType']>
export type ActivityStatus = NonNullable<ActivityQuery['status']>
export type ActivityEntry = Answer<'/api/activity-log'>['activities'][number]
export type StatusCounts = Answer<'/api/activity-log/summary'>['counts']

export const ACTION_LABELS: Record<ActionType, string> = {
  generation: 'Generation',
  comparison_generation: 'Comparison generation',
  deployment: 'Deployment',
  work_created: 'Work created',
  work_updated: 'Work updated',
  work_deleted: 'Work deleted',
  item_added: 'Item added',
  item_updated: 'Item updated',
  item_removed: 'Item removed',
  plugin_enabled: 'Plugin enabled',
  plugin_disabled: 'Plugin disabled',
  plugin_configured: 'Plugin configured',
  template_added: 'Template added',
  template_updated: 'Template updated',
  template_archived: 'Template archived',
  template_forked: 'Template forked',
  template_default_set: 'Default template set',
  member_invited: 'Member invited',
  member_role_changed: 'Member role changed',
  member_removed: 'Member removed',
  schedule_created: 'Schedule created',
  schedule_updated: 'Schedule updated',
  schedule_deleted: 'Schedule deleted',
  schedule_executed: 'Scheduled run',
  import: 'Import',
  export: 'Export',
  settings_updated: 'Settings updated',
  website_settings_updated: 'Website settings updated',
  prompts_updated: 'Prompts updated',
  works_config_sync: 'Works configuration sync',
  user_login: 'Sign-in',
  user_signup: 'Sign-up',
  provider_connected: 'Provider connected',
  password_changed: 'Password changed',
  chat_conversation: 'Chat conversation',
  community_pr_merged: 'Community pull request merged',
}

export const STATUS_LABELS: Record<ActivityStatus, string> = {
  pending: 'Pending',
  in_progress: 'Running',
  completed: 'Completed',
  failed: 'Failed',
  cancelled: 'Cancelled',
}

export const isActionType = (value: string | null): value is ActionType =>
  value !== null && Object.hasOwn(ACTION_LABELS, value)

export const isStatus = (value: string | null): value is ActivityStatus =>
  value !== null && Object.hasOwn(STATUS_LABELS, value)

/** An entry's action type in words (one the console does not know yet as the API spells it). */
export const actionLabel = (type: string) => (isActionType(type) ? ACTION_LABELS[type] : type)

const optionsOf = (labels: Record<string, string>, any: string): Option[] => [
  { value: '', label: any },
  ...Object.entries(labels).map(([value, label]) => ({ value, label })),
]

export const ACTION_OPTIONS = optionsOf(
  Object.fromEntries(Object.entries(ACTION_LABELS).sort(([, a], [, b]) => a.localeCompare(b))),
  'Any action',
)
export const STATUS_OPTIONS = optionsOf(STATUS_LABELS, 'Any status')

/** An entry's status as a badge: `in_progress` reads "Running". */
export function ActivityStatusBadge({ status }: { status: string }) {
  return <span class={`status status-${status}`}>{isStatus(status) ? STATUS_LABELS[status] : status}</span>
}
