import { and, desc, eq, isNotNull, or } from 'drizzle-orm'
import type { Db } from '../../db/index.ts'
import { forbidden, notFound } from '../../lib/errors.ts'
import { isUuid } from '../../lib/ids.ts'
import { type MemberRole, type WorkRole, workMembers, works } from './tables.ts'

export type WorkRow = typeof works.$inferSelect
/** A work as one caller sees it. */
export type WorkWithRole = WorkRow & { role: WorkRole }

/** The 404 of a work that does not exist or that the caller may not see: one answer for both. */
export const workNotFound = () => notFound('Work not found', 'WORK_NOT_FOUND')

const roleIn = (work: WorkRow, memberRole: MemberRole | null, userId: string): WorkRole | null =>
  work.ownerId === userId ? 'owner' : memberRole

export const canEditAs = (role: WorkRole | null) => role === 'owner' || role === 'editor'

/**
 * Who may do what with a work: the owner everything, an editor change it, a viewer see it. A work the
 * caller may not see answers 404 (other people's things do not exist for them), one they see but may not
 * change 403.
 */
export function createWorkAccess({ db }: { db: Db }) {
  /** The work and the caller's role in one query; null when it does not exist or is not theirs to see. */
  async function load(workId: string, userId: string): Promise<WorkWithRole | null> {
    // A malformed id would be a Postgres cast error (500); it names no work, so it is a 404.
    if (!isUuid(workId) || !isUuid(userId)) return null
    const [row] = await db
      .select({ work: works, memberRole: workMembers.role })
      .from(works)
      .leftJoin(workMembers, and(eq(workMembers.workId, works.id), eq(workMembers.userId, userId)))
      .where(eq(works.id, workId))
    if (!row) return null
    const role = roleIn(row.work, row.memberRole, userId)
    return role ? { ...row.work, role } : null
  }

  async function roleOf(workId: string, userId: string): Promise<WorkRole | null> {
    return (await load(workId, userId))?.role ?? null
  }

  async function requireView(workId: string, userId: string): Promise<WorkWithRole> {
    const work = await load(workId, userId)
    if (!work) throw workNotFound()
    return work
  }

  return {
    roleOf,
    /** Every work the user owns or is a member of, newest first, with their role in each. */
    async listVisible(userId: string): Promise<WorkWithRole[]> {
      const rows = await db
        .select({ work: works, memberRole: workMembers.role })
        .from(works)
        .leftJoin(workMembers, and(eq(workMembers.workId, works.id), eq(workMembers.userId, userId)))
        .where(or(eq(works.ownerId, userId), isNotNull(workMembers.userId)))
        .orderBy(desc(works.createdAt), desc(works.id))
      return rows.flatMap(({ work, memberRole }) => {
        const role = roleIn(work, memberRole, userId)
        return role ? [{ ...work, role }] : []
      })
    },
    async canView(workId: string, userId: string): Promise<boolean> {
      return (await roleOf(workId, userId)) !== null
    },
    async canEdit(workId: string, userId: string): Promise<boolean> {
      return canEditAs(await roleOf(workId, userId))
    },
    async isOwner(workId: string, userId: string): Promise<boolean> {
      return (await roleOf(workId, userId)) === 'owner'
    },
    requireView,
    /** The work when the caller may change it (owner or editor). */
    async requireEdit(workId: string, userId: string): Promise<WorkWithRole> {
      const work = await requireView(workId, userId)
      if (!canEditAs(work.role)) throw forbidden('You may not change this work', 'WORK_EDIT_FORBIDDEN')
      return work
    },
    /** The work when the caller owns it. */
    async requireOwner(workId: string, userId: string): Promise<WorkWithRole> {
      const work = await requireView(workId, userId)
      if (work.role !== 'owner') throw forbidden('Only the owner may do this', 'WORK_OWNER_REQUIRED')
      return work
    },
  }
}

export type WorkAccess = ReturnType<typeof createWorkAccess>
