import { randomBytes } from 'node:crypto'
import { and, asc, count, desc, eq, gte, lte, type SQL, sql } from 'drizzle-orm'
import type { AnyPgColumn } from 'drizzle-orm/pg-core'
import type { Logger } from 'pino'
import { anyContaining, containing, endingWith, withinDates } from '../../db/filters.ts'
import type { Db } from '../../db/index.ts'
import type { InvalidatedCache } from '../../db/invalidated-cache.ts'
import type { Clock } from '../../lib/clock.ts'
import { parseDateRange } from '../../lib/dates.ts'
import { HttpError, invalidInput, notFound } from '../../lib/errors.ts'
import { isUuid } from '../../lib/ids.ts'
import { fetchPage, type Page, type PageOf } from '../../lib/pagination.ts'
import { hashPassword } from '../../lib/passwords.ts'
import { normaliseEmail } from '../accounts/rules.ts'
import type { AccountService } from '../accounts/service.ts'
import { runBulk } from '../bulk.ts'
import { USER_ROLE_ID } from '../roles/tables.ts'
import { type CrmSync, syncClient } from './crm.ts'
import { type ClientRow, clientExists, type ProfileService, profileConflicts } from './profiles.ts'
import type {
  AdvancedSearchQuery,
  Client,
  ClientListQuery,
  ClientSortField,
  ClientStats,
  CreateClientBody,
  DashboardQuery,
  UpdateClientBody,
} from './schemas.ts'
import { computeClientStats } from './stats.ts'
import { clientProfiles } from './tables.ts'

/** The figures also move with the calendar (today, this week), which no notification announces. */
export const CLIENT_STATS_REUSE_MS = 30_000

const SORT_COLUMNS: Record<ClientSortField, SQL> = {
  createdAt: sql`${clientProfiles.createdAt}`,
  updatedAt: sql`${clientProfiles.updatedAt}`,
  name: sql`lower(${clientProfiles.displayName})`,
  email: sql`${clientProfiles.email}`,
  company: sql`lower(${clientProfiles.company})`,
  totalSubmissions: sql`${clientProfiles.totalSubmissions}`,
}

const clientNotFound = () => notFound('Client not found', 'CLIENT_NOT_FOUND')

export function toClient(row: ClientRow): Client {
  const { id, userId, displayName, username, email, bio, jobTitle, company, industry, phone, website } = row
  const { location, avatar, accountType, status, plan, provider, emailVerified, twoFactorEnabled } = row
  const { totalSubmissions, joinedAt, lastActiveAt, createdAt, updatedAt } = row
  return {
    ...{ id, userId, displayName, username, email, bio, jobTitle, company, industry, phone, website },
    ...{ location, avatar, accountType, status, plan, provider, emailVerified, twoFactorEnabled },
    ...{ totalSubmissions, joinedAt, lastActiveAt, createdAt, updatedAt },
  }
}

function listConditions(query: ClientListQuery): (SQL | undefined)[] {
  const search = query.search?.trim()
  return [
    search ? anyContaining([clientProfiles.displayName, clientProfiles.email], search) : undefined,
    query.status ? eq(clientProfiles.status, query.status) : undefined,
    query.plan ? eq(clientProfiles.plan, query.plan) : undefined,
    query.accountType ? eq(clientProfiles.accountType, query.accountType) : undefined,
    query.provider ? eq(clientProfiles.provider, query.provider) : undefined,
  ]
}

function dateConditions(query: DashboardQuery): SQL[] {
  const range = parseDateRange(
    { from: query.createdAfter, to: query.createdBefore },
    { from: 'createdAfter', to: 'createdBefore' },
  )
  return withinDates(clientProfiles.createdAt, range)
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
    throw invalidInput('minSubmissions', 'cannot exceed maxSubmissions')
  const domain = query.emailDomain?.trim().replace(/^@/, '')
  const company = query.companySearch?.trim()
  const location = query.locationSearch?.trim()
  const industry = query.industrySearch?.trim()
  return [
    ...listConditions(query),
    ...dateConditions(query),
    domain ? endingWith(clientProfiles.email, `@${domain}`) : undefined,
    company ? containing(clientProfiles.company, company) : undefined,
    location ? containing(clientProfiles.location, location) : undefined,
    industry ? containing(clientProfiles.industry, industry) : undefined,
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

/**
 * What a status change does to the moderation times: suspending stamps `suspendedAt` (kept when already
 * suspended), any other status lifts a suspension and a ban alike.
 */
function moderationOf(existing: ClientRow, status: ClientRow['status'] | undefined, now: Date) {
  if (status === undefined || status === existing.status) return {}
  return status === 'suspended' ? { suspendedAt: now } : { suspendedAt: null, bannedAt: null }
}

export interface ClientServiceDeps {
  db: Db
  clock: Clock
  crm: CrmSync
  log: Pick<Logger, 'warn'>
  accounts: Pick<AccountService, 'findByEmail' | 'update'>
  profiles: Pick<ProfileService, 'addProfile' | 'openAccount'>
  /**
   * List totals and the statistics, each instance's own, invalidated by the trigger on `client_profiles`
   * (every write, whoever makes it) and at once by this service's own writes.
   */
  counts: InvalidatedCache<number>
  stats: InvalidatedCache<ClientStats>
}

export function createClientService(deps: ClientServiceDeps) {
  const { db, clock, crm, log, accounts, profiles, counts, stats } = deps

  async function find(id: string): Promise<ClientRow> {
    if (!isUuid(id)) throw clientNotFound()
    const [row] = await db.select().from(clientProfiles).where(eq(clientProfiles.id, id))
    if (!row) throw clientNotFound()
    return row
  }

  /** A page of clients; the exact total of each filter is counted once until the table changes. */
  function page(
    where: SQL | undefined,
    query: Page,
    order: SQL[] = [desc(clientProfiles.createdAt)],
  ): Promise<PageOf<Client>> {
    const counting = db.select({ total: count() }).from(clientProfiles).where(where)
    const statement = counting.toSQL()
    return fetchPage(query, {
      rows: async (limit, offset) =>
        (
          await db
            .select()
            .from(clientProfiles)
            .where(where)
            .orderBy(...order, asc(clientProfiles.id))
            .limit(limit)
            .offset(offset)
        ).map(toClient),
      total: () =>
        counts.get(
          `${statement.sql}\0${JSON.stringify(statement.params)}`,
          async () => (await counting)[0]?.total ?? 0,
        ),
    })
  }

  /** The statistics: five scans of every profile, computed once until the table (or the day) changes. */
  const currentStats = () => stats.get('all', () => computeClientStats(db, clock.now()))

  /**
   * After this instance's own writes: its next list counts again and its stats are computed afresh,
   * without waiting for the table's change notification (which clears both on every instance).
   */
  function changed() {
    counts.clear()
    stats.clear()
  }

  async function update(id: string, changes: UpdateClientBody): Promise<Client> {
    const existing = await find(id)
    const updated = await db.transaction(async (tx) => {
      const [row] = await tx
        .update(clientProfiles)
        .set({ ...changes, ...moderationOf(existing, changes.status, clock.now()), updatedAt: clock.now() })
        .where(eq(clientProfiles.id, existing.id))
        .returning()
        .catch(profileConflicts)
      // The account's username follows its profile's, as the admin users API keeps them in step.
      if (changes.username !== undefined && changes.username !== existing.username) {
        await accounts.update(existing.userId, { username: changes.username }, tx)
      }
      await syncClient(crm, log, toClient(row!), tx)
      return row!
    })
    changed()
    return toClient(updated)
  }

  async function remove(id: string): Promise<void> {
    const row = await find(id)
    await db.delete(clientProfiles).where(eq(clientProfiles.id, row.id))
    changed()
  }

  /** Every item is tried on its own: one failure is reported at its index and never stops the rest. */
  const bulk = (ids: string[], action: (id: string, index: number) => Promise<void>, verb: string) =>
    runBulk(ids, action, (error, clientId) => log.warn({ err: error, clientId }, `bulk ${verb} failed`))

  return {
    list(query: ClientListQuery) {
      return page(and(...listConditions(query)), query)
    },

    /**
     * A profile for the email: added to its account when one exists, otherwise with a new account whose
     * random temporary password nobody is told (the client signs in after a reset or through a provider).
     */
    async create(input: CreateClientBody): Promise<Client> {
      const email = normaliseEmail(input.email)
      const [taken] = await db
        .select({ id: clientProfiles.id })
        .from(clientProfiles)
        .where(eq(clientProfiles.email, email))
        .limit(1)
      if (taken) throw clientExists()
      const { email: _email, username, ...fields } = input
      const displayName = input.displayName?.trim() || email.split('@')[0]!
      const account = await accounts.findByEmail(email)
      // Hashed before the transaction, which should hold its connection no longer than its statements.
      const passwordHash = account ? undefined : await hashPassword(randomBytes(32).toString('base64url'))
      const row = await db.transaction(async (tx) => {
        const profile = account
          ? await profiles.addProfile(
              username === undefined ? account : { ...account, username },
              { ...fields, displayName },
              tx,
            )
          : (
              await profiles
                .openAccount(
                  { email, passwordHash: passwordHash!, name: displayName, roleId: USER_ROLE_ID, username },
                  { ...fields, displayName },
                  tx,
                )
                .catch((error: unknown) => {
                  // An account with this email appeared meanwhile.
                  throw error instanceof HttpError && error.code === 'EMAIL_TAKEN' ? clientExists() : error
                })
            ).profile
        await syncClient(crm, log, toClient(profile), tx)
        return profile
      })
      changed()
      return toClient(row)
    },

    async get(id: string): Promise<Client> {
      return toClient(await find(id))
    },

    update,
    remove,
    stats: currentStats,

    async dashboard(query: DashboardQuery) {
      const where = and(...listConditions(query), ...dateConditions(query))
      const [listed, figures] = await Promise.all([page(where, query), currentStats()])
      return { ...listed, stats: figures }
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
        ...listed,
        appliedFilters,
        searchTime: Math.round((performance.now() - started) * 100) / 100,
      }
    },

    bulkUpdate(items: ({ id: string } & UpdateClientBody)[]) {
      return bulk(
        items.map((item) => item.id),
        async (_id, index) => {
          const { id, ...changes } = items[index]!
          await update(id, changes)
        },
        'updated',
      )
    },

    bulkDelete(items: { id: string }[]) {
      return bulk(
        items.map((item) => item.id),
        (id) => remove(id),
        'deleted',
      )
    },
  }
}

export type ClientService = ReturnType<typeof createClientService>
