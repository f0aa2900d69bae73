import { randomBytes } from 'node:crypto'
import { and, asc, eq } from 'drizzle-orm'
import type { Db, DbOrTx } from '../../db/index.ts'
import { claimFreeSlug } from '../../db/slugs.ts'
import type { Clock } from '../../lib/clock.ts'
import { normaliseEmail } from '../../lib/email.ts'
import { badRequest, conflict, invalidInput, notFound } from '../../lib/errors.ts'
import { isUuid } from '../../lib/ids.ts'
import { slugify } from '../../lib/slug.ts'
import { users } from '../auth/tables.ts'
import type { EventContext, PlatformEvents } from '../events.ts'
import { type WorkAccess, type WorkWithRole, workNotFound } from './access.ts'
import {
  type AddMemberBody,
  type CreateWorkBody,
  type Member,
  type UpdateWorkBody,
  WORK_SLUG_MAX_LENGTH,
  type Work,
} from './schemas.ts'
import { workMembers, works } from './tables.ts'

/** A change to a work as the activity log records it. */
export interface WorkAudit {
  userId: string
  workId: string
  actionType: 'work_updated' | 'work_deleted'
  action: string
  status: 'completed'
  summary: string
  details: Record<string, unknown>
  context: EventContext
}

/**
 * Records a work's change in the change's transaction, never failing it (the activity log's writer). Handed
 * in rather than imported: the activity log reads works, so works cannot import it back.
 */
export interface WorkAuditor {
  audit(entry: WorkAudit, tx: DbOrTx): Promise<unknown>
}

export interface WorkServiceDeps {
  db: Db
  clock: Clock
  access: Pick<WorkAccess, 'listVisible' | 'requireView' | 'requireEdit' | 'requireOwner'>
  events: Pick<PlatformEvents, 'emit'>
  activity: WorkAuditor
}

const MIN_DERIVED_SLUG_LENGTH = 2

export function workOf(work: WorkWithRole): Work {
  return {
    id: work.id,
    slug: work.slug,
    name: work.name,
    description: work.description,
    ownerId: work.ownerId,
    role: work.role,
    generateStatus: { status: work.generateStatus, itemsCount: work.itemsCount, recentLogs: work.recentLogs },
    createdAt: work.createdAt,
    updatedAt: work.updatedAt,
  }
}

/** The trimmed name; a blank one is a validation error like the schema's own. */
function workName(name: string): string {
  const trimmed = name.trim()
  if (!trimmed) throw invalidInput('name', 'must not be blank')
  return trimmed
}

const workDescription = (description: string | null | undefined) => description?.trim() || null

/** The slug a name gives, or a random one when the name has too few usable characters. */
export function derivedSlug(name: string): string {
  const slug = slugify(name, WORK_SLUG_MAX_LENGTH)
  return slug.length >= MIN_DERIVED_SLUG_LENGTH ? slug : `work-${randomBytes(3).toString('hex')}`
}

export function createWorkService({ db, clock, access, events, activity }: WorkServiceDeps) {
  const insertWork = async (tx: DbOrTx, row: Omit<typeof works.$inferInsert, 'slug'>, slug: string) => {
    // The unique constraint decides between concurrent creates: the loser inserts nothing.
    const [work] = await tx
      .insert(works)
      .values({ ...row, slug })
      .onConflictDoNothing({ target: [works.ownerId, works.slug] })
      .returning()
    return work
  }

  /** The first of `base`, `base-2`, `base-3`, … the owner does not use yet, theirs until `tx` ends. */
  const freeSlug = (tx: DbOrTx, ownerId: string, base: string) =>
    claimFreeSlug(
      tx,
      {
        column: works.slug,
        maxLength: WORK_SLUG_MAX_LENGTH,
        scope: { key: ownerId, where: eq(works.ownerId, ownerId) },
      },
      base,
    )

  const audit = (tx: DbOrTx, entry: WorkAudit) => activity.audit(entry, tx)

  return {
    async create(ownerId: string, input: CreateWorkBody, context: EventContext): Promise<Work> {
      const now = clock.now()
      const row = {
        ownerId,
        name: workName(input.name),
        description: workDescription(input.description),
        createdAt: now,
        updatedAt: now,
      }
      const work = await db.transaction(async (tx) => {
        const slug = input.slug ?? (await freeSlug(tx, ownerId, derivedSlug(row.name)))
        const created = await insertWork(tx, row, slug)
        // A derived slug is free under its lock; only a slug sent at the same moment can take it first.
        if (!created) throw conflict(`You already have a work with the slug "${slug}"`, 'SLUG_TAKEN')
        await events.emit(
          { type: 'WorkCreated', userId: ownerId, workId: created.id, workName: created.name, context },
          { tx },
        )
        return created
      })
      return workOf({ ...work, role: 'owner' })
    },

    async list(userId: string): Promise<Work[]> {
      return (await access.listVisible(userId)).map(workOf)
    },

    async get(userId: string, workId: string): Promise<Work> {
      return workOf(await access.requireView(workId, userId))
    },

    async update(
      userId: string,
      workId: string,
      input: UpdateWorkBody,
      context: EventContext,
    ): Promise<Work> {
      const work = await access.requireEdit(workId, userId)
      const changes: { name?: string; description?: string | null } = {}
      if (input.name !== undefined) changes.name = workName(input.name)
      if (input.description !== undefined) changes.description = workDescription(input.description)
      const changed = Object.keys(changes)
      if (changed.length === 0) return workOf(work)
      const updated = await db.transaction(async (tx) => {
        const [row] = await tx
          .update(works)
          .set({ ...changes, updatedAt: clock.now() })
          .where(eq(works.id, work.id))
          .returning()
        if (!row) throw workNotFound()
        await audit(tx, {
          userId,
          workId: row.id,
          actionType: 'work_updated',
          action: 'work.updated',
          status: 'completed',
          summary: `Updated work "${row.name}"`,
          details: { changes: changed },
          context,
        })
        return row
      })
      return workOf({ ...updated, role: work.role })
    },

    /** Deletes the work once: a second delete racing the first waits for it and finds nothing (404). */
    async delete(userId: string, workId: string, context: EventContext): Promise<void> {
      const work = await access.requireOwner(workId, userId)
      await db.transaction(async (tx) => {
        const [locked] = await tx
          .select({ id: works.id })
          .from(works)
          .where(eq(works.id, work.id))
          .for('update')
        if (!locked) throw workNotFound()
        // Recorded while the work exists: the foreign key then sets the entry's workId to null, and it stays.
        await audit(tx, {
          userId,
          workId: work.id,
          actionType: 'work_deleted',
          action: 'work.deleted',
          status: 'completed',
          summary: `Deleted work "${work.name}"`,
          details: { workId: work.id, slug: work.slug },
          context,
        })
        await tx.delete(works).where(eq(works.id, work.id))
      })
    },

    /** The owner first, then the members in the order they joined. */
    async members(userId: string, workId: string): Promise<Member[]> {
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
      input: AddMemberBody,
      context: EventContext,
    ): Promise<Member> {
      const work = await access.requireOwner(workId, userId)
      const [invitee] = await db
        .select({ id: users.id, email: users.email })
        .from(users)
        .where(eq(users.email, normaliseEmail(input.email)))
      if (!invitee) throw notFound('No account with this email', 'USER_NOT_FOUND')
      if (invitee.id === work.ownerId) throw badRequest('This account owns the work', 'ALREADY_OWNER')
      const member = await db.transaction(async (tx) => {
        const [added] = await tx
          .insert(workMembers)
          .values({ workId: work.id, userId: invitee.id, role: input.role, createdAt: clock.now() })
          .onConflictDoNothing()
          .returning()
        if (!added) throw conflict('This account is already a member of the work', 'ALREADY_MEMBER')
        await events.emit(
          {
            type: 'MemberInvited',
            userId,
            workId: work.id,
            workName: work.name,
            inviteeEmail: invitee.email,
            role: added.role,
            context,
          },
          { tx },
        )
        return added
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
