import { sql } from 'drizzle-orm'
import type { Db } from '../../db/index.ts'
import { rowsOf } from '../../db/queries.ts'
import type { Clock } from '../../lib/clock.ts'
import { users } from '../accounts/tables.ts'
import { clientProfiles } from '../clients/tables.ts'
import { comments } from '../comments/tables.ts'
import { favorites } from '../favorites/tables.ts'
import { itemHistory, items } from '../items/tables.ts'

/** How many days the activity covers by default, and at most. */
export const ACTIVITY_DAYS = { default: 30, min: 7, max: 365 } as const
const TOP_ITEMS = 5
const RECENT_CHANGES = 10

export const HISTORY_ACTIONS = ['created', 'submitted', 'updated', 'approved', 'rejected', 'deleted'] as const
export type HistoryAction = (typeof HISTORY_ACTIONS)[number]

export interface ActivityDay {
  /** The UTC day, `YYYY-MM-DD`. */
  date: string
  /** Items proposed by members (`POST /api/submit`). */
  submissions: number
  /** Items added by admins and imports. */
  created: number
  approved: number
  rejected: number
  /** Edits of existing items. */
  updated: number
  deleted: number
  comments: number
  newClients: number
}

export interface DashboardActivity {
  days: number
  from: string
  to: string
  series: ActivityDay[]
  topItems: { id: string; slug: string; name: string; status: string; favorites: number; comments: number }[]
  recent: {
    id: string
    action: HistoryAction
    item: { id: string; slug: string | null; name: string | null; deleted: boolean }
    actor: { id: string; name: string | null; email: string } | null
    note: string | null
    createdAt: string
  }[]
}

const HISTORY_COLUMNS: Record<HistoryAction, Exclude<keyof ActivityDay, 'date'>> = {
  submitted: 'submissions',
  created: 'created',
  approved: 'approved',
  rejected: 'rejected',
  updated: 'updated',
  deleted: 'deleted',
}

const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10)

/**
 * What happened in the directory day by day over the last `days` UTC days (today included, every day
 * present, zeros too): items' changes by kind from their history, comments, new clients; the most
 * favorited items; the latest changes of items with who made them. Three indexed range reads and two small
 * ones: the history by its time, comments by theirs, client profiles by their creation.
 */
export function createDashboardActivity(deps: { db: Db; clock: Pick<Clock, 'nowMs'> }) {
  const { db, clock } = deps
  return async function activity(days: number = ACTIVITY_DAYS.default): Promise<DashboardActivity> {
    const today = dayOf(clock.nowMs())
    const fromMs = Date.parse(`${today}T00:00:00.000Z`) - (days - 1) * 86_400_000
    const from = new Date(fromMs)
    const day = (column: unknown) => sql`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD')`

    const [history, commentDays, clientDays, top, recent] = await Promise.all([
      rowsOf<{ day: string; action: HistoryAction; count: number }>(
        db,
        sql`select ${day(itemHistory.createdAt)} as day, ${itemHistory.action} as action, count(*)::int as count
            from ${itemHistory} where ${itemHistory.createdAt} >= ${from} group by 1, 2`,
      ),
      rowsOf<{ day: string; count: number }>(
        db,
        sql`select ${day(comments.createdAt)} as day, count(*)::int as count
            from ${comments} where ${comments.createdAt} >= ${from} group by 1`,
      ),
      rowsOf<{ day: string; count: number }>(
        db,
        sql`select ${day(clientProfiles.createdAt)} as day, count(*)::int as count
            from ${clientProfiles} where ${clientProfiles.createdAt} >= ${from} group by 1`,
      ),
      // Favorites name items by slug (a favorite outlives a rename of nothing but the slug it keeps).
      rowsOf<{ id: string; slug: string; name: string; status: string; favorites: number; comments: number }>(
        db,
        sql`with top as (
              select ${favorites.itemSlug} as slug, count(*)::int as favorites from ${favorites}
              group by 1 order by 2 desc, 1 limit ${TOP_ITEMS})
            select ${items.id} as id, ${items.slug} as slug, ${items.name} as name, ${items.status} as status,
              top.favorites,
              (select count(*)::int from ${comments} where ${comments.itemId} = ${items.id}) as comments
            from top join ${items} on ${items.slug} = top.slug
            order by top.favorites desc, ${items.slug}`,
      ),
      rowsOf<{
        id: string
        action: HistoryAction
        item_id: string
        slug: string | null
        name: string | null
        actor_id: string | null
        actor_name: string | null
        actor_email: string | null
        note: string | null
        created_at: string | Date
      }>(
        db,
        sql`select h.id, h.action, h.item_id, i.slug, i.name, u.id as actor_id, u.name as actor_name,
              u.email as actor_email, h.note, h.created_at
            from (select * from ${itemHistory} order by ${itemHistory.createdAt} desc, ${itemHistory.id} desc
                  limit ${RECENT_CHANGES}) h
            left join ${items} i on i.id = h.item_id
            left join ${users} u on u.id = h.actor_id
            order by h.created_at desc, h.id desc`,
      ),
    ])

    const series = new Map<string, ActivityDay>()
    for (let i = 0; i < days; i++) {
      const date = dayOf(fromMs + i * 86_400_000)
      series.set(date, {
        date,
        submissions: 0,
        created: 0,
        approved: 0,
        rejected: 0,
        updated: 0,
        deleted: 0,
        comments: 0,
        newClients: 0,
      })
    }
    for (const row of history) {
      const column = HISTORY_COLUMNS[row.action]
      const entry = series.get(row.day)
      if (column && entry) entry[column] += Number(row.count)
    }
    for (const row of commentDays) {
      const entry = series.get(row.day)
      if (entry) entry.comments += Number(row.count)
    }
    for (const row of clientDays) {
      const entry = series.get(row.day)
      if (entry) entry.newClients += Number(row.count)
    }

    return {
      days,
      from: dayOf(fromMs),
      to: today,
      series: [...series.values()],
      topItems: top.map((row) => ({
        ...row,
        favorites: Number(row.favorites),
        comments: Number(row.comments),
      })),
      recent: recent.map((row) => ({
        id: row.id,
        action: row.action,
        item: { id: row.item_id, slug: row.slug, name: row.name, deleted: row.slug === null },
        actor: row.actor_id ? { id: row.actor_id, name: row.actor_name, email: row.actor_email ?? '' } : null,
        note: row.note,
        createdAt: new Date(row.created_at).toISOString(),
      })),
    }
  }
}

export type DashboardActivityRead = ReturnType<typeof createDashboardActivity>
