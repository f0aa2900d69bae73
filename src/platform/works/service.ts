import { randomBytes } from 'node:crypto'
import { and, asc, eq, like } from 'drizzle-orm'
import type { Db } from '../../db/index.ts'
import type { Clock } from '../../lib/clock.ts'
import { badRequest, conflict, notFound } from '../../lib/errors.ts'
import { isUuid } from '../../lib/ids.ts'
import { slugify } from '../../lib/slug.ts'
import type { ActivityWriter } from '../activity-log/writer.ts'
import { users } from '../auth/tables.ts'
import type { EventBus, EventContext } from '../events.ts'
import type { WorkAccess, WorkRow, WorkWithRole } from './access.ts'
import { WORK_SLUG_MAX_LENGTH } from './schemas.ts'
import { type GenerateStatus, type MemberRole, type WorkRole, workMembers, works } from './tables.ts'

export interface WorkView {
  id: string
  slug: string
  name: string
  description: string | null
  ownerId: string
  role: WorkRole
  generateStatus: { status: GenerateStatus; itemsCount: number; recentLogs: string[] }
  createdAt: string
  updatedAt: string
}

export interface MemberView {
  userId: string
  email: string
  role: WorkRole
}

export interface CreateWorkInput {
  name: string
  slug?: string | undefined
  description?: string | undefined
}

export interface UpdateWorkInput {
  name?: string | undefined
  description?: string | null | undefined
}

export interface WorkServiceDeps {
  db: Db
  clock: Clock
  access: Pick<WorkAccess, 'listVisible' | 'requireView' | 'requireEdit' | 'requireOwner'>
  events: Pick<EventBus, 'emit'>
  activity: Pick<ActivityWriter, 'record'>
}

const MIN_DERIVED_SLUG_LENGTH = 2
// Every `-<n>` variant of a derived slug keeps at least this much of it, so one prefix query finds them all.
const SLUG_SCAN_PREFIX_LENGTH = 40
// Concurrent creates may take the slug found free; each retry looks again.
const DERIVED_SLUG_ATTEMPTS = 5

export function workView(work: WorkWithRole): WorkView {
  return {
    id: work.id,
    slug: work.slug,
    name: work.name,
    description: work.description,
    ownerId: work.ownerId,
    role: work.role,
    generateStatus: { status: work.generateStatus, itemsCount: work.itemsCount, recentLogs: work.recentLogs },
    createdAt: work.createdAt.toISOString(),
    updatedAt: work.updatedAt.toISOString(),
  }
}

/** The trimmed name; a blank one is a validation error like the schema's own. */
function workName(name: string): string {
  const trimmed = name.trim()
  if (!trimmed) {
    throw badRequest(
      'body.name must not be blank',
      [{ field: 'body.name', message: 'must not be blank' }],
      'VALIDATION_ERROR',
    )
  }
  return trimmed
}

const workDescription = (description: string | null | undefined) => description?.trim() || null

/** The slug a name gives, or a random one when the name has too few usable characters. */
export function derivedSlug(name: string): string {
  const slug = slugify(name, WORK_SLUG_MAX_LENGTH)
  return slug.length >= MIN_DERIVED_SLUG_LENGTH ? slug : `work-${randomBytes(3).toString('hex')}`
}

/** `base-n`, cut so it still fits the slug's maximum length. */
export function numberedSlug(base: string, n: number): string {
  const suffix = `-${n}`
  return `${base.slice(0, WORK_SLUG_MAX_LENGTH - suffix.length).replace(/-+$/, '')}${suffix}`
}

export function createWorkService({ db, clock, access, events, activity }: WorkServiceDeps) {
  const insertWork = async (row: Omit<typeof works.$inferInsert, 'slug'>, slug: string) => {
    // The unique constraint decides between concurrent creates: the loser inserts nothing.
    const [work] = await db
      .insert(works)
      .values({ ...row, slug })
      .onConflictDoNothing({ target: [works.ownerId, works.slug] })
      .returning()
    return work
  }

  /** The first of `base`, `base-2`, `base-3`, … the owner does not use yet. */
  async function freeSlug(ownerId: string, base: string): Promise<string> {
    const rows = await db
      .select({ slug: works.slug })
      .from(works)
      .where(and(eq(works.ownerId, ownerId), like(works.slug, `${base.slice(0, SLUG_SCAN_PREFIX_LENGTH)}%`)))
    const taken = new Set(rows.map((row) => row.slug))
    if (!taken.has(base)) return base
    for (let n = 2; ; n++) {
      const candidate = numberedSlug(base, n)
      if (!taken.has(candidate)) return candidate
    }
  }

  return {
    async create(ownerId: string, input: CreateWorkInput, context: EventContext): Promise<WorkView> {
      const now = clock.now()
      const row = {
        ownerId,
        name: workName(input.name),
        description: workDescription(input.description),
        createdAt: now,
        updatedAt: now,
      }
      let work: WorkRow | undefined
      if (input.slug !== undefined) {
        work = await insertWork(row, input.slug)
        if (!work) throw conflict(`You already have a work with the slug "${input.slug}"`, 'SLUG_TAKEN')
      } else {
        const base = derivedSlug(row.name)
        for (let attempt = 0; !work && attempt < DERIVED_SLUG_ATTEMPTS; attempt++) {
          work = await insertWork(row, await freeSlug(ownerId, base))
        }
        if (!work) throw conflict('Could not find a free slug for this name; send one', 'SLUG_TAKEN')
      }
      await events.emit({
        type: 'WorkCreated',
        userId: ownerId,
        workId: work.id,
        workName: work.name,
        context,
      })
      return workView({ ...work, role: 'owner' })
    },

    async list(userId: string): Promise<WorkView[]> {
      return (await access.listVisible(userId)).map(workView)
    },

    async get(userId: string, workId: string): Promise<WorkView> {
      return workView(await access.requireView(workId, userId))
    },

    async update(
      userId: string,
      workId: string,
      input: UpdateWorkInput,
      context: EventContext,
    ): Promise<WorkView> {
      const work = await access.requireEdit(workId, userId)
      const changes: { name?: string; description?: string | null } = {}
      if (input.name !== undefined) changes.name = workName(input.name)
      if (input.description !== undefined) changes.description = workDescription(input.description)
      const changed = Object.keys(changes)
      if (changed.length === 0) return workView(work)
      const [updated] = await db
        .update(works)
        .set({ ...changes, updatedAt: clock.now() })
        .where(eq(works.id, work.id))
        .returning()
      if (!updated) throw notFound('Work not found', 'WORK_NOT_FOUND')
      await activity.record({
        userId,
        workId: updated.id,
        actionType: 'work_updated',
        action: 'work.updated',
        status: 'completed',
        summary: `Updated work "${updated.name}"`,
        details: { changes: changed },
        context,
      })
      return workView({ ...updated, role: work.role })
    },

    async delete(userId: string, workId: string, context: EventContext): Promise<void> {
      const work = await access.requireOwner(workId, userId)
      // Recorded while the work exists: the foreign key then sets the entry's workId to null, and it stays.
      await activity.record({
        userId,
        workId: work.id,
        actionType: 'work_deleted',
        action: 'work.deleted',
        status: 'completed',
        summary: `Deleted work "${work.name}"`,
        details: { workId: work.id, slug: work.slug },
        context,
      })
      await db.delete(works).where(eq(works.id, work.id))
    },

    /** The owner first, then the members in the order they joined. */
    async members(userId: string, workId: string): Promise<MemberView[]> {
      const work = await access.requireView(workId, userId)
      const [owner] = await db
        .select({ userId: users.id, email: users.email })
        .from(users)
        .where(eq(users.id, work.ownerId))
      const members = await db
        .select({ userId: workMembers.userId, email: users.email, role: workMembers.role })
        .from(workMembers)
        .innerJoin(users, eq(users.id, workMembers.userId))
        .where(eq(workMembers.workId, work.id))
        .orderBy(asc(workMembers.createdAt), asc(users.email))
      return [...(owner ? [{ ...owner, role: 'owner' as const }] : []), ...members]
    },

    async addMember(
      userId: string,
      workId: string,
      input: { email: string; role: MemberRole },
      context: EventContext,
    ): Promise<MemberView> {
      const work = await access.requireOwner(workId, userId)
      const [invitee] = await db
        .select({ id: users.id, email: users.email })
        .from(users)
        .where(eq(users.email, input.email.trim().toLowerCase()))
      if (!invitee) throw notFound('No account with this email', 'USER_NOT_FOUND')
      if (invitee.id === work.ownerId) {
        throw badRequest('This account owns the work', undefined, 'ALREADY_OWNER')
      }
      const [member] = await db
        .insert(workMembers)
        .values({ workId: work.id, userId: invitee.id, role: input.role, createdAt: clock.now() })
        .onConflictDoNothing()
        .returning()
      if (!member) throw conflict('This account is already a member of the work', 'ALREADY_MEMBER')
      await events.emit({
        type: 'MemberInvited',
        userId,
        workId: work.id,
        workName: work.name,
        inviteeEmail: invitee.email,
        role: member.role,
        context,
      })
      return { userId: invitee.id, email: invitee.email, role: member.role }
    },

    async removeMember(userId: string, workId: string, memberId: string): Promise<void> {
      const work = await access.requireOwner(workId, userId)
      const removed = isUuid(memberId)
        ? await db
            .delete(workMembers)
            .where(and(eq(workMembers.workId, work.id), eq(workMembers.userId, memberId)))
            .returning({ userId: workMembers.userId })
        : []
      if (removed.length === 0) throw notFound('Member not found', 'MEMBER_NOT_FOUND')
    },
  }
}

export type WorkService = ReturnType<typeof createWorkService>
