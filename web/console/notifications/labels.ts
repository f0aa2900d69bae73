/** Notifications as the console shows them: their kinds and categories in words, and the change signal. */
import type { paths } from '../../../packages/client/src/generated/platform.ts'
import { NOTIFICATIONS_CHANGED } from '../../shared/poll.ts'
import type { Answer } from '../api.ts'

export type Notification = Answer<'/api/notifications'>['notifications'][number]
type ListQuery = NonNullable<paths['/api/notifications']['get']['parameters']['query']>
export type Category = NonNullable<ListQuery['category']>

export const CATEGORY_LABELS: Record<Category, string> = {
  ai_credits: 'AI credits',
  subscription: 'Subscription',
  generation: 'Generation',
  system: 'System',
  security: 'Security',
}

export const TYPE_LABELS: Record<Notification['type'], string> = {
  ERROR: 'Error',
  WARNING: 'Warning',
  INFO: 'Information',
  SUCCESS: 'Success',
}

export const isCategory = (value: string | null): value is Category =>
  value !== null && Object.hasOwn(CATEGORY_LABELS, value)

/** What the Notifications screen puts on the change it announces, so it does not reload for its own. */
export const FROM_SCREEN = 'notifications-screen'

/** Tells the bell and the banners that notifications changed, so they ask again at once. */
export const announceChange = () =>
  window.dispatchEvent(new CustomEvent(NOTIFICATIONS_CHANGED, { detail: FROM_SCREEN }))
