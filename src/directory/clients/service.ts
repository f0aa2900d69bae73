import { randomBytes } from 'node:crypto'
import { and, asc, count, desc, eq, gte, lte, type SQL, sql } from 'drizzle-orm'
import type { AnyPgColumn } from 'drizzle-orm/pg-core'
import type { Logger } from 'pino'
import type { CountCache } from '../../db/count-cache.ts'
import { type Db, uniqueViolation } from '../../db/index.ts'
import type { Clock } from '../../lib/clock.ts'
import { badRequest, conflict, HttpError, notFound } from '../../lib/errors.ts'
import { isUuid } from '../../lib/ids.ts'
import { offsetOf, type Page } from '../../lib/pagination.ts'
import { hashPassword } from '../../lib/passwords.ts'
import { USER_ROLE_ID } from '../roles/tables.ts'
import { createAccount, normaliseEmail } from '../users/accounts.ts'
import { users } from '../users/tables.ts'
import { type CrmSync, syncClient } from './crm.ts'
import type {
  AdvancedSearchQuery,
  BulkAnswer,
  BulkDeleteBody,
  BulkUpdateBody,
  Client,
  ClientListQuery,
  ClientSortField,
  ClientStats,
  CreateClientBody,
  DashboardQuery,
  UpdateClientBody,
} from './schemas.ts'
import { computeClientStats } from './stats.ts'

const STATS_REUSE_MS = 30_000

import { clientProfiles } from './tables.ts'

type ClientRow = typeof clientProfiles.$inferSelect

const DAY_MS = 86_400_000
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/

const SORT_COLUMNS: Record<ClientSortField, SQL> = {
  createdAt: sql`${clientProfiles.createdAt}`,
  updatedAt: sql`${clientProfiles.updatedAt}`,
  name: sql`lower(${clientProfiles.displayName})`,
  email: sql`${clientProfiles.email}`,
  company: sql`lower(${clientProfiles.company})`,
  totalSubmissions: sql`${clientProfiles.totalSubmissions}`,
}

/** `%`, `_` and `\` match themselves in a LIKE pattern. */
const likeLiteral = (text: string) => text.replace(/[\\%_]/g, (char) => `\\${char}`)
const containing = (text: string) => `%${likeLiteral(text)}%`

const clientNotFound = () => notFound('Client not found', 'CLIENT_NOT_FOUND')

export function toClient(row: ClientRow): Client {
  return {
    id: row.id,
    userId: row.userId,
    displayName: row.displayName,
    username: row.username,
    email: row.email,
    bio: row.bio,
    jobTitle: row.jobTitle,
    company: row.company,
    industry: row.industry,
    phone: row.phone,
    website: row.website,
    location: row.location,
    avatar: row.avatar,
    accountType: row.accountType,
    status: row.status,
    plan: row.plan,
    provider: row.provider,
    emailVerified: row.emailVerified,
    twoFactorEnabled: row.twoFactorEnabled,
    totalSubmissions: row.totalSubmissions,
    joinedAt: row.joinedAt,
    lastActiveAt: row.lastActiveAt,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  }
}

/** A query bound as a Date: a bare `YYYY-MM-DD` is a whole UTC day, so `before` reaches its end. */
function dateBound(value: string | undefined, field: string, edge: 'after' | 'before'): Date | undefined {
  if (value === undefined) return undefined
  const at = new Date(DATE_ONLY.test(value) ? `${value}T00:00:00.000Z` : value)
  if (Number.isNaN(at.getTime()))
    throw badRequest(`${field} is not a valid date`, [{ field, message: 'invalid date' }])
  return edge === 'before' && DATE_ONLY.test(value) ? new Date(at.getTime() + DAY_MS - 1) : at
}

function listConditions(query: ClientListQuery): (SQL | undefined)[] {
  const search = query.search?.trim()
  return [
    search
      ? sql`(${clientProfiles.displayName} ilike ${containing(search)} or ${clientProfiles.email} ilike ${containing(search)})`
      : undefined,
    query.status ? eq(clientProfiles.status, query.status) : undefined,
    query.plan ? eq(clientProfiles.plan, query.plan) : undefined,
    query.accountType ? eq(clientProfiles.accountType, query.accountType) : undefined,
    query.provider ? eq(clientProfiles.provider, query.provider) : undefined,
  ]
}

function dateConditions(query: DashboardQuery): (SQL | undefined)[] {
  const after = dateBound(query.createdAfter, 'createdAfter', 'after')
  const before = dateBound(query.createdBefore, 'createdBefore', 'before')
  return [
    after ? gte(clientProfiles.createdAt, after) : undefined,
    before ? lte(clientProfiles.createdAt, before) : undefined,
  ]
}

const present = (column: AnyPgColumn, wanted: boolean | undefined) =>
  wanted === undefined
    ? undefined
    : wanted
      ? sql`(${column} is not null and ${column} <> '')`
      : sql`(${column} is null or ${column} = '')`

function advancedConditions(query: AdvancedSearchQuery): (SQL | undefined)[] {
  if (
    query.minSubmissions !== undefined &&
    query.maxSubmissions !== undefined &&
    query.minSubmissions > query.maxSubmissions
  )
    throw badRequest('minSubmissions cannot exceed maxSubmissions', [
      { field: 'minSubmissions', message: 'greater than maxSubmissions' },
    ])
  const domain = query.emailDomain?.trim().replace(/^@/, '')
  const company = query.companySearch?.trim()
  const location = query.locationSearch?.trim()
  const industry = query.industrySearch?.trim()
  return [
    ...listConditions(query),
    ...dateConditions(query),
    domain ? sql`${clientProfiles.email} ilike ${`%@${likeLiteral(domain)}`}` : undefined,
    company ? sql`${clientProfiles.company} ilike ${containing(company)}` : undefined,
    location ? sql`${clientProfiles.location} ilike ${containing(location)}` : undefined,
    industry ? sql`${clientProfiles.industry} ilike ${containing(industry)}` : undefined,
    query.minSubmissions !== undefined
      ? gte(clientProfiles.totalSubmissions, query.minSubmissions)
      : undefined,
    query.maxSubmissions !== undefined
      ? lte(clientProfiles.totalSubmissions, query.maxSubmissions)
      : undefined,
    query.emailVerified !== undefined ? eq(clientProfiles.emailVerified, query.emailVerified) : undefined,
    query.twoFactorEnabled !== undefined
      ? eq(clientProfiles.twoFactorEnabled, query.twoFactorEnabled)
      : undefined,
    present(clientProfiles.avatar, query.hasAvatar),
    present(clientProfiles.website, query.hasWebsite),
    present(clientProfiles.phone, query.hasPhone),
  ]
}

const FILTER_KEYS = [
  'search',
  'status',
  'plan',
  'accountType',
  'provider',
  'createdAfter',
  'createdBefore',
  'emailDomain',
  'companySearch',
  'locationSearch',
  'industrySearch',
  'minSubmissions',
  'maxSubmissions',
  'emailVerified',
  'twoFactorEnabled',
  'hasAvatar',
  'hasWebsite',
  'hasPhone',
] as const

const usernameTaken = () => conflict('This username is already taken', 'USERNAME_TAKEN')

export interface ClientServiceDeps {
  db: Db
  clock: Clock
  crm: CrmSync
  log: Pick<Logger, 'warn'>
  /** List totals, cleared on every change of the table (see src/db/count-cache.ts). */
  counts: CountCache
}

export function createClientService({ db, clock, crm, log, counts }: ClientServiceDeps) {
  async function find(id: string): Promise<ClientRow> {
    if (!isUuid(id)) throw clientNotFound()
    const [row] = await db.select().from(clientProfiles).where(eq(clientProfiles.id, id))
    if (!row) throw clientNotFound()
    return row
  }

  async function page(where: SQL | undefined, query: Page, order: SQL[] = [desc(clientProfiles.createdAt)]) {
    const offset = offsetOf(query)
    const rows = db
      .select()
      .from(clientProfiles)
      .where(where)
      .orderBy(...order, asc(clientProfiles.id))
      .limit(query.limit)
      .offset(offset)
    const counting = db.select({ total: count() }).from(clientProfiles).where(where)
    const statement = counting.toSQL()
    const key = `${statement.sql}\0${JSON.stringify(statement.params)}`
    const cached = counts.peek(key)
    // Counted already: only the page. Otherwise both at once, on two connections.
    const [found, total] = await Promise.all([
      rows,
      cached ?? counts.get(key, async () => (await counting)[0]?.total ?? 0),
    ])
    return {
      clients: found.map(toClient),
      meta: { page: query.page, totalPages: Math.ceil(total / query.limit), total, limit: query.limit },
    }
  }

  /**
   * After this instance's own writes: its next list counts again and its stats are computed afresh,
   * without waiting for the table's change notification (which clears both on every instance).
   */
  function changed() {
    counts.clear()
  }

  async function update(id: string, changes: UpdateClientBody): Promise<Client> {
    const existing = await find(id)
    const updated = await db
      .transaction(async (tx) => {
        const now = clock.now()
        const [row] = await tx
          .update(clientProfiles)
          .set({ ...changes, updatedAt: now })
          .where(eq(clientProfiles.id, existing.id))
          .returning()
        // The account mirrors the profile's username, as the admin users API keeps them in step.
        if (changes.username !== undefined && changes.username !== existing.username)
          await tx
            .update(users)
            .set({ username: changes.username, updatedAt: now })
            .where(eq(users.id, existing.userId))
        return row!
      })
      .catch((error: unknown) => {
        if (uniqueViolation(error)?.constraint.includes('username')) throw usernameTaken()
        throw error
      })
    const client = toClient(updated)
    changed()
    await syncClient(crm, log, client)
    return client
  }

  async function remove(id: string): Promise<void> {
    const row = await find(id)
    await db.delete(clientProfiles).where(eq(clientProfiles.id, row.id))
    changed()
  }

  // The figures take five scans of every profile: one computation serves every request until the table
  // changes (the same invalidation as the list totals), and at most STATS_REUSE_MS, since the figures
  // also move with the calendar (this week, this month) and while the change notifications are down.
  let statsCache: { at: number; value: Promise<ClientStats> } | undefined
  function cachedStats(): Promise<ClientStats> {
    const now = clock.nowMs()
    if (statsCache && now - statsCache.at < STATS_REUSE_MS) return statsCache.value
    const value = computeClientStats(db, clock.now())
    statsCache = { at: now, value }
    value.catch(() => {
      if (statsCache?.value === value) statsCache = undefined
    })
    return value
  }
  counts.onClear(() => {
    statsCache = undefined
  })

  /** Every item is tried on its own: one failure is reported at its index and never stops the rest. */
  async function bulk(ids: string[], action: (id: string, index: number) => Promise<void>, verb: string) {
    const results: BulkAnswer['results'] = []
    const errors: BulkAnswer['errors'] = []
    for (const [index, id] of ids.entries()) {
      try {
        await action(id, index)
        results.push({ index, id, success: true })
      } catch (error) {
        if (!(error instanceof HttpError)) log.warn({ err: error, clientId: id }, `bulk ${verb} failed`)
        errors.push({
          index,
          id,
          error: error instanceof HttpError ? error.message : 'Internal server error',
        })
      }
    }
    return {
      success: true as const,
      message: `${results.length} of ${ids.length} clients ${verb}`,
      results,
      errors,
      summary: { total: ids.length, successful: results.length, failed: errors.length },
    }
  }

  return {
    list(query: ClientListQuery) {
      return page(and(...listConditions(query)), query)
    },

    async create(input: CreateClientBody) {
      const email = normaliseEmail(input.email)
      const [taken] = await db
        .select({ id: clientProfiles.id })
        .from(clientProfiles)
        .where(eq(clientProfiles.email, email))
        .limit(1)
      if (taken) throw conflict('A client with this email already exists', 'CLIENT_EXISTS')
      const displayName = input.displayName?.trim() || email.split('@')[0]!
      const { email: _email, displayName: _name, username, ...profile } = input
      const [account] = await db.select().from(users).where(eq(users.email, email))
      let row: ClientRow
      try {
        if (account) {
          const now = clock.now()
          const [inserted] = await db
            .insert(clientProfiles)
            .values({
              ...profile,
              userId: account.id,
              email,
              displayName,
              username: username ?? account.username,
              provider: account.provider,
              joinedAt: account.createdAt,
              createdAt: now,
              updatedAt: now,
            })
            .returning()
          row = inserted!
        } else {
          // A temporary password nobody is told: the client signs in after a reset or through a provider.
          const passwordHash = await hashPassword(randomBytes(32).toString('base64url'))
          const { result } = await createAccount(
            { db, clock },
            { email, passwordHash, name: displayName, roleId: USER_ROLE_ID, username },
            async (tx, user) => {
              const [updated] = await tx
                .update(clientProfiles)
                .set({ ...profile, displayName })
                .where(eq(clientProfiles.userId, user.id))
                .returning()
              return updated!
            },
          )
          row = result
        }
      } catch (error) {
        const constraint = uniqueViolation(error)?.constraint
        if (constraint?.includes('user_id') || constraint?.includes('email'))
          throw conflict('A client with this email already exists', 'CLIENT_EXISTS')
        if (constraint?.includes('username')) throw usernameTaken()
        throw error
      }
      const client = toClient(row)
      changed()
      await syncClient(crm, log, client)
      return {
        id: client.id,
        displayName: client.displayName,
        email: client.email,
        status: client.status,
        plan: client.plan,
        accountType: client.accountType,
        createdAt: client.createdAt,
      }
    },

    async get(id: string): Promise<Client> {
      return toClient(await find(id))
    },

    update,
    remove,

    stats() {
      return cachedStats()
    },

    async dashboard(query: DashboardQuery) {
      const where = and(...listConditions(query), ...dateConditions(query))
      const [listed, stats] = await Promise.all([page(where, query), cachedStats()])
      return { clients: listed.clients, stats, meta: listed.meta }
    },

    async advancedSearch(query: AdvancedSearchQuery) {
      const started = performance.now()
      const where = and(...advancedConditions(query))
      const column = SORT_COLUMNS[query.sortBy]
      // Clients without a company sort last whichever the direction.
      const order = query.sortOrder === 'asc' ? sql`${column} asc nulls last` : sql`${column} desc nulls last`
      const listed = await page(where, query, [order])
      const appliedFilters: Record<string, unknown> = { sortBy: query.sortBy, sortOrder: query.sortOrder }
      for (const key of FILTER_KEYS) if (query[key] !== undefined) appliedFilters[key] = query[key]
      return {
        clients: listed.clients,
        pagination: {
          page: listed.meta.page,
          limit: listed.meta.limit,
          total: listed.meta.total,
          totalPages: listed.meta.totalPages,
        },
        searchMetadata: {
          appliedFilters,
          searchTime: Math.round((performance.now() - started) * 100) / 100,
        },
      }
    },

    bulkUpdate(body: BulkUpdateBody) {
      return bulk(
        body.clients.map((item) => item.id),
        async (_id, index) => {
          const { id, ...changes } = body.clients[index]!
          await update(id, changes)
        },
        'updated',
      )
    },

    bulkDelete(body: BulkDeleteBody) {
      return bulk(
        body.clients.map((item) => item.id),
        (id) => remove(id),
        'deleted',
      )
    },
  }
}

export type ClientService = ReturnType<typeof createClientService>
