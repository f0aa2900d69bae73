/** The history of an item: what a change compares, the entry it writes, and the page an admin reads. */
import { desc, eq } from 'drizzle-orm'
import type { Db, DbOrTx } from '../../db/index.ts'
import { countRows } from '../../db/queries.ts'
import { isUuid } from '../../lib/ids.ts'
import { fetchPage, type PageOf } from '../../lib/pagination.ts'
import { users } from '../accounts/tables.ts'
import { itemNotFound } from './read.ts'
import type { HistoryEntry, HistoryQuery } from './schemas.ts'
import { type FieldChange, itemHistory, items } from './tables.ts'

type Row = Omit<typeof items.$inferSelect, 'search'>

/** What an item's history compares: its own fields, its location's, and its tags. */
type Snapshot = Record<string, unknown>

/** An item's location fields, each recorded as `location.<field>`. */
export const LOCATION_FIELDS = [
  'address',
  'city',
  'country',
  'latitude',
  'longitude',
  'isRemote',
  'serviceArea',
] as const
const TRACKED_FIELDS = [
  'slug',
  'name',
  'description',
  'url',
  'iconUrl',
  'imageUrl',
  'categoryId',
  'companyId',
  'status',
] as const

/** The fields a snapshot reads, of a row or of what an import makes of one. */
export type SnapshotFields = Pick<Row, (typeof TRACKED_FIELDS)[number] | (typeof LOCATION_FIELDS)[number]>

export function snapshotOf(row: SnapshotFields, tagIds: string[]): Snapshot {
  const snapshot: Snapshot = {}
  for (const field of TRACKED_FIELDS) snapshot[field] = row[field]
  for (const field of LOCATION_FIELDS) snapshot[`location.${field}`] = row[field]
  snapshot.tagIds = [...tagIds].sort()
  return snapshot
}

/** Each field whose value differs between `before` and `after`, in a stable order. */
export function changesBetween(before: Snapshot, after: Snapshot): FieldChange[] {
  const changes: FieldChange[] = []
  for (const field of Object.keys(after)) {
    if (JSON.stringify(before[field] ?? null) !== JSON.stringify(after[field] ?? null)) {
      changes.push({ field, from: before[field] ?? null, to: after[field] ?? null })
    }
  }
  return changes
}

/** Writes one history entry, in the transaction of the change it records. */
export async function record(
  tx: DbOrTx,
  at: Date,
  entry: {
    itemId: string
    actorId: string | null
    action: HistoryEntry['action']
    changes: FieldChange[]
    note?: string | null
  },
) {
  await tx.insert(itemHistory).values({ ...entry, note: entry.note ?? null, createdAt: at })
}

/** The history of an item that exists, newest first; 404 otherwise. */
export async function historyOf(db: Db, id: string, query: HistoryQuery): Promise<PageOf<HistoryEntry>> {
  if (!isUuid(id)) throw itemNotFound()
  const [exists] = await db.select({ id: items.id }).from(items).where(eq(items.id, id))
  if (!exists) throw itemNotFound()
  const where = eq(itemHistory.itemId, id)
  return fetchPage(query, {
    rows: async (limit, offset) => {
      const rows = await db
        .select({ entry: itemHistory, actorName: users.name, actorEmail: users.email })
        .from(itemHistory)
        .leftJoin(users, eq(users.id, itemHistory.actorId))
        .where(where)
        .orderBy(desc(itemHistory.createdAt), desc(itemHistory.id))
        .limit(limit)
        .offset(offset)
      return rows.map(({ entry, actorName, actorEmail }) => ({
        id: entry.id,
        action: entry.action as HistoryEntry['action'],
        actor: entry.actorId && actorEmail ? { id: entry.actorId, name: actorName, email: actorEmail } : null,
        changes: entry.changes,
        note: entry.note,
        createdAt: entry.createdAt,
      }))
    },
    total: () => countRows(db, itemHistory, where),
  })
}
