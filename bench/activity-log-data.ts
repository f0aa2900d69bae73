/** What bench/activity-log.ts and its server share: the seeded vocabulary and the server's ready line. */

/** Eight of the spec's action types, spread evenly over the rows. */
export const BENCH_ACTION_TYPES = [
  'generation',
  'deployment',
  'work_created',
  'work_updated',
  'item_added',
  'item_updated',
  'export',
  'user_login',
] as const

/** Words in summaries and work names: each appears in about 1 summary in 16. */
export const BENCH_WORDS = [
  'coffee',
  'espresso',
  'bicycle',
  'vintage',
  'hiking',
  'museum',
  'library',
  'garden',
  'vinyl',
  'ramen',
  'bakery',
  'bookshop',
  'climbing',
  'cinema',
  'ceramics',
  'tea',
] as const

/** The word of the search variant. */
export const BENCH_SEARCH_WORD = 'espresso'

/** The one JSON line the server prints on stdout once it listens. */
export interface ServerReady {
  port: number
  keys: { userId: string; key: string }[]
  heavyUserId: string
  heavyKey: string
  seed: {
    users: number
    works: number
    rows: number
    heavyRows: number
    migrateMs: number
    usersAndWorksMs: number
    activityMs: number
    vacuumAnalyzeMs: number
    apiKeysMs: number
    totalMs: number
    tableMb: number | null
    poolSize: number | null
    server: string
  }
}
