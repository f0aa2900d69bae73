import { and, count, desc, eq, inArray, isNotNull, isNull, lt, or, type SQL, sql } from 'drizzle-orm'
import type { Logger } from 'pino'
import type { Db, DbOrTx } from '../../db/index.ts'
import type {
  TwentyClient,
  TwentyConnection,
  TwentyFailure,
  TwentyPersonInput,
  TwentyResult,
} from '../../integrations/twenty/client.ts'
import { type Jobs, sendMany } from '../../jobs/index.ts'
import type { Clock } from '../../lib/clock.ts'
import { EnvelopeError } from '../../lib/crypto.ts'
import { badRequest } from '../../lib/errors.ts'
import { isUuid } from '../../lib/ids.ts'
import { fetchPage, type PageOf } from '../../lib/pagination.ts'
import { HOUR_MS, MINUTE_MS } from '../../lib/time.ts'
import type { CrmSync } from '../clients/crm.ts'
import type { Client } from '../clients/schemas.ts'
import { clientProfiles } from '../clients/tables.ts'
import type { RetryBody, SyncQuery, SyncRecord } from './schemas.ts'
import type { CrmSettings, CrmSettingsRow } from './settings.ts'
import {
  type ClientSnapshot,
  crmCompanies,
  crmSyncRecords,
  SYNC_STATUSES,
  type SyncStatus,
} from './tables.ts'

/** The durable job that sends one client's latest change to the CRM. */
export const CRM_SYNC_JOB = 'crm-sync'
/** Queues again the syncs whose worker died, and retries whose job went missing. */
export const CRM_RECOVERY_JOB = 'crm-sync-recovery'

/** However the retries are set, one waits at most this long. */
const RETRY_MAX_MS = HOUR_MS
/** The requests one attempt may make: find and create the company; update, find, update, create the person. */
const REQUESTS_PER_ATTEMPT = 6
const LEASE_MARGIN_MS = 30_000
/** A retry this late is taken to have lost its job. */
const OVERDUE_MS = 10 * MINUTE_MS

export interface CrmSyncJob {
  clientId: string
  /** The record's attempts when the job was queued: a job of an earlier round finds them changed and stops. */
  attempt: number
}

type Outcome =
  | { kind: 'synced'; personId: string | null; companyId: string | null }
  | { kind: 'skipped'; reason: string }
  | { kind: 'failed'; status: number | null; error: string; retry: boolean }
  /** Waiting for another attempt (creating the same company): tried again soon, not counted as a failure. */
  | { kind: 'deferred'; reason: string }

type Row = typeof crmSyncRecords.$inferSelect

export interface CrmSyncDeps {
  db: Db
  clock: Clock
  log: Pick<Logger, 'info' | 'warn'>
  jobs: Pick<Jobs, 'send' | 'boss'>
  settings: Pick<CrmSettings, 'row' | 'connectionOf'>
  twenty: Omit<TwentyClient, 'check'>
  retry: { maxAttempts: number; baseMs: number }
  /** One request's limit (CRM_TIMEOUT_MS): an attempt holds its record for a few of them. */
  timeoutMs: number
}

const wants = (settings: CrmSettingsRow | null): settings is CrmSettingsRow =>
  Boolean(settings?.enabled && (settings.syncClients || settings.syncCompanies))

/** Twenty's person name: the display name's first word, then the rest. */
function nameOf(displayName: string): { firstName: string; lastName: string } {
  const [firstName = '', ...rest] = displayName.trim().split(/\s+/)
  return { firstName, lastName: rest.join(' ') }
}

const failed = (failure: TwentyFailure): Outcome => ({
  kind: 'failed',
  status: failure.status,
  error: failure.error,
  retry: failure.retry,
})

/**
 * The sync of clients to the CRM: the hook that records a change and queues its job in the change's
 * transaction, the job that sends the latest change (person and company upserted, their CRM ids kept so a
 * later change updates them), its retries with exponential backoff up to `failed`, and the admin's view and
 * re-queueing of the records.
 *
 * A record is held by one attempt at a time (a lease), and each job names the round it belongs to, so
 * two instances never send one change twice and a change made during an attempt is sent after it.
 */
export function createCrmSync(deps: CrmSyncDeps) {
  const { db, clock, log, jobs, settings, twenty, retry } = deps
  const leaseMs = REQUESTS_PER_ATTEMPT * deps.timeoutMs + LEASE_MARGIN_MS

  /** Exponential: the base, then twice it, and so on, capped. */
  const backoffMs = (attempts: number) =>
    Math.min(RETRY_MAX_MS, retry.baseMs * 2 ** Math.min(attempts - 1, 30))

  const queue = (tx: DbOrTx, job: CrmSyncJob, startAfter?: Date) =>
    jobs.send(CRM_SYNC_JOB, job, { tx, ...(startAfter ? { startAfter } : {}) })

  /** Takes the record for one attempt: pending, of this job's round, and held by no other attempt. */
  async function claim({ clientId, attempt }: CrmSyncJob): Promise<Row | undefined> {
    const now = clock.now()
    const [row] = await db
      .update(crmSyncRecords)
      .set({ leaseUntil: new Date(now.getTime() + leaseMs) })
      .where(
        and(
          eq(crmSyncRecords.clientId, clientId),
          eq(crmSyncRecords.status, 'pending'),
          eq(crmSyncRecords.attempts, attempt),
          or(isNull(crmSyncRecords.leaseUntil), lt(crmSyncRecords.leaseUntil, now)),
        ),
      )
      .returning()
    return row
  }

  /**
   * The company's CRM id, made once per name whatever its case, whichever attempt gets there first; null
   * while another attempt is making it.
   */
  async function companyIdOf(
    connection: TwentyConnection,
    name: string,
    website: string | null,
  ): Promise<TwentyResult<string | null>> {
    // Cut to the column: lower-casing can lengthen a name.
    const nameKey = name.toLowerCase().slice(0, 200)
    const [known] = await db.select().from(crmCompanies).where(eq(crmCompanies.nameKey, nameKey))
    if (known?.companyId) return { ok: true, status: 200, value: known.companyId }
    const now = clock.now()
    const [claimed] = await db
      .insert(crmCompanies)
      .values({ nameKey, name, claimedUntil: new Date(now.getTime() + leaseMs), updatedAt: now })
      .onConflictDoUpdate({
        target: crmCompanies.nameKey,
        set: { claimedUntil: new Date(now.getTime() + leaseMs), updatedAt: now },
        setWhere: and(
          isNull(crmCompanies.companyId),
          or(isNull(crmCompanies.claimedUntil), lt(crmCompanies.claimedUntil, now)),
        ),
      })
      .returning()
    if (!claimed) return { ok: true, status: 200, value: null }
    const release = (companyId: string | null) =>
      db
        .update(crmCompanies)
        .set({ companyId, claimedUntil: null, updatedAt: clock.now() })
        .where(eq(crmCompanies.nameKey, nameKey))
    // Found first, so a company made by hand, or by an attempt whose answer was lost, is not made twice.
    const found = await twenty.findCompanyByName(connection, name)
    const made = !found.ok
      ? found
      : found.value
        ? { ...found, value: found.value }
        : await twenty.createCompany(connection, {
            name,
            ...(website ? { domainName: { primaryLinkUrl: website } } : {}),
          })
    await release(made.ok ? made.value : null)
    return made
  }

  /** The person's CRM id after writing them: the known one, the one with their email, or a new one. */
  async function personIdOf(
    connection: TwentyConnection,
    knownId: string | null,
    person: TwentyPersonInput,
  ): Promise<TwentyResult<string>> {
    if (knownId) {
      const updated = await twenty.updatePerson(connection, knownId, person)
      if (!updated.ok) return updated
      if (updated.value) return { ...updated, value: knownId }
    }
    // Found first, so a person made by an attempt whose answer was lost (a timeout) is not made twice.
    const found = await twenty.findPersonByEmail(connection, person.emails.primaryEmail)
    if (!found.ok) return found
    if (found.value) {
      const updated = await twenty.updatePerson(connection, found.value, person)
      if (!updated.ok) return updated
      if (updated.value) return { ...updated, value: found.value }
    }
    return twenty.createPerson(connection, person)
  }

  /** One attempt at sending the record's latest change; never throws for what the CRM does. */
  async function send(record: Row, snapshot: ClientSnapshot): Promise<Outcome> {
    const current = await settings.row()
    if (!wants(current)) {
      return { kind: 'skipped', reason: 'The CRM sync was turned off before this change was sent' }
    }
    let connection: TwentyConnection | null
    try {
      connection = settings.connectionOf(current)
    } catch (error) {
      if (!(error instanceof EnvelopeError)) throw error
      return {
        kind: 'failed',
        status: null,
        error: 'The saved API key cannot be decrypted (DIRECTORY_ENCRYPTION_KEY changed?): save it again',
        retry: false,
      }
    }
    if (!connection) return { kind: 'skipped', reason: 'No CRM API key is saved' }

    let companyId: string | null = record.companyId
    if (current.syncCompanies) {
      const name = snapshot.company?.trim()
      if (name) {
        const company = await companyIdOf(connection, name, snapshot.website)
        if (!company.ok) return failed(company)
        if (company.value === null) {
          return { kind: 'deferred', reason: `The company "${name}" is being created by another attempt` }
        }
        companyId = company.value
      } else {
        companyId = null
      }
    }
    let personId: string | null = record.personId
    if (current.syncClients) {
      const person: TwentyPersonInput = {
        name: nameOf(snapshot.displayName),
        emails: { primaryEmail: snapshot.email },
        jobTitle: snapshot.jobTitle ?? '',
        city: snapshot.location ?? '',
        ...(current.syncCompanies ? { companyId } : {}),
      }
      const written = await personIdOf(connection, personId, person)
      if (!written.ok) return failed(written)
      personId = written.value
    }
    return { kind: 'synced', personId, companyId }
  }

  /**
   * Records an attempt: synced; skipped; failed for now, with the next attempt's job after the backoff; or
   * failed for good. A change made while it ran is queued at once, whatever the attempt came to.
   */
  async function record(claimed: Row, outcome: Outcome): Promise<SyncStatus | null> {
    return db.transaction(async (tx) => {
      const [current] = await tx
        .select()
        .from(crmSyncRecords)
        .where(eq(crmSyncRecords.clientId, claimed.clientId))
        .for('update')
      // The client was deleted meanwhile.
      if (!current) return null
      const now = clock.now()
      const learned =
        outcome.kind === 'synced'
          ? {
              personId: outcome.personId,
              companyId: outcome.companyId,
              syncedVersion: claimed.version,
              syncedAt: now,
            }
          : {}
      const failure =
        outcome.kind === 'synced'
          ? { lastError: null, lastStatus: null }
          : outcome.kind === 'failed'
            ? { lastError: outcome.error, lastStatus: outcome.status }
            : { lastError: outcome.reason, lastStatus: null }
      const common = { ...learned, ...failure, leaseUntil: null, updatedAt: now }
      const where = eq(crmSyncRecords.clientId, claimed.clientId)

      if (current.version > claimed.version) {
        await tx
          .update(crmSyncRecords)
          .set({ ...common, status: 'pending', attempts: 0, nextAttemptAt: null })
          .where(where)
        await queue(tx, { clientId: claimed.clientId, attempt: 0 })
        return 'pending'
      }
      if (outcome.kind === 'deferred') {
        const nextAttemptAt = new Date(now.getTime() + retry.baseMs)
        await tx
          .update(crmSyncRecords)
          .set({ ...common, nextAttemptAt })
          .where(where)
        await queue(tx, { clientId: claimed.clientId, attempt: claimed.attempts }, nextAttemptAt)
        return 'pending'
      }
      const attempts = claimed.attempts + 1
      if (outcome.kind !== 'failed') {
        const status = outcome.kind
        await tx
          .update(crmSyncRecords)
          .set({ ...common, status, attempts, nextAttemptAt: null })
          .where(where)
        return status
      }
      const again = outcome.retry && attempts < retry.maxAttempts
      const nextAttemptAt = again ? new Date(now.getTime() + backoffMs(attempts)) : null
      await tx
        .update(crmSyncRecords)
        .set({ ...common, status: again ? 'pending' : 'failed', attempts, nextAttemptAt })
        .where(where)
      if (nextAttemptAt) await queue(tx, { clientId: claimed.clientId, attempt: attempts }, nextAttemptAt)
      return again ? 'pending' : 'failed'
    })
  }

  const hook: CrmSync = {
    async clientChanged(client: Client, tx: DbOrTx) {
      if (!wants(await settings.row(tx))) return
      const now = clock.now()
      const snapshot: ClientSnapshot = {
        displayName: client.displayName,
        email: client.email,
        jobTitle: client.jobTitle,
        company: client.company,
        location: client.location,
        website: client.website,
      }
      const reset = {
        status: 'pending' as const,
        snapshot,
        attempts: 0,
        lastError: null,
        lastStatus: null,
        nextAttemptAt: null,
        updatedAt: now,
      }
      await tx
        .insert(crmSyncRecords)
        .values({ clientId: client.id, ...reset, createdAt: now })
        .onConflictDoUpdate({
          target: crmSyncRecords.clientId,
          set: { ...reset, version: sql`${crmSyncRecords.version} + 1` },
        })
      await queue(tx, { clientId: client.id, attempt: 0 })
    },
  }

  function listWhere(query: Pick<SyncQuery, 'status'>): SQL | undefined {
    return query.status === undefined ? undefined : eq(crmSyncRecords.status, query.status)
  }

  return {
    hook,
    /** How long one attempt holds its record. */
    leaseMs,

    /** The job: one attempt at the client's latest change, unless another attempt holds it or it is done. */
    async attempt(job: CrmSyncJob): Promise<void> {
      if (!isUuid(job.clientId) || !Number.isInteger(job.attempt)) {
        log.warn({ job }, 'CRM sync job without a client id and attempt')
        return
      }
      const claimed = await claim(job)
      if (!claimed) return
      const outcome = await send(claimed, claimed.snapshot)
      const status = await record(claimed, outcome)
      const said =
        outcome.kind === 'failed' ? outcome.error : outcome.kind === 'synced' ? null : outcome.reason
      if (outcome.kind === 'synced') {
        log.info({ clientId: claimed.clientId, attempt: claimed.attempts + 1 }, 'client synced to the CRM')
      } else {
        log.warn(
          { clientId: claimed.clientId, attempt: claimed.attempts + 1, error: said, next: status },
          'client not synced to the CRM',
        )
      }
    },

    /**
     * Queues again what lost its worker or its job: a record still held long after its lease ended (a
     * crash), and a retry long overdue. Returns how many.
     */
    async recover(): Promise<number> {
      const now = clock.nowMs()
      const stale = await db
        .select({ clientId: crmSyncRecords.clientId, attempts: crmSyncRecords.attempts })
        .from(crmSyncRecords)
        .where(
          and(
            eq(crmSyncRecords.status, 'pending'),
            or(
              lt(crmSyncRecords.leaseUntil, new Date(now)),
              and(
                isNull(crmSyncRecords.leaseUntil),
                isNotNull(crmSyncRecords.nextAttemptAt),
                lt(crmSyncRecords.nextAttemptAt, new Date(now - OVERDUE_MS)),
              ),
            ),
          ),
        )
      await sendMany(
        jobs,
        CRM_SYNC_JOB,
        stale.map((row) => ({ clientId: row.clientId, attempt: row.attempts })),
      )
      if (stale.length > 0) log.warn({ records: stale.length }, 'CRM syncs without a worker queued again')
      return stale.length
    },

    async list(query: SyncQuery): Promise<PageOf<SyncRecord> & { counts: Record<SyncStatus, number> }> {
      const where = listWhere(query)
      const [page, grouped] = await Promise.all([
        fetchPage(query, {
          rows: async (limit, offset) => {
            const rows = await db
              .select({
                record: crmSyncRecords,
                email: clientProfiles.email,
                displayName: clientProfiles.displayName,
              })
              .from(crmSyncRecords)
              .innerJoin(clientProfiles, eq(clientProfiles.id, crmSyncRecords.clientId))
              .where(where)
              .orderBy(desc(crmSyncRecords.updatedAt), desc(crmSyncRecords.clientId))
              .limit(limit)
              .offset(offset)
            return rows.map(({ record: row, email, displayName }) => ({
              clientId: row.clientId,
              client: { email, displayName },
              status: row.status,
              attempts: row.attempts,
              lastError: row.lastError,
              lastStatus: row.lastStatus,
              personId: row.personId,
              companyId: row.companyId,
              nextAttemptAt: row.nextAttemptAt,
              syncedAt: row.syncedAt,
              updatedAt: row.updatedAt,
            }))
          },
          total: async () => {
            const [row] = await db.select({ total: count() }).from(crmSyncRecords).where(where)
            return row?.total ?? 0
          },
        }),
        db
          .select({ status: crmSyncRecords.status, total: count() })
          .from(crmSyncRecords)
          .groupBy(crmSyncRecords.status),
      ])
      const counts = Object.fromEntries(SYNC_STATUSES.map((status) => [status, 0])) as Record<
        SyncStatus,
        number
      >
      for (const { status, total } of grouped) counts[status] = total
      return { ...page, counts }
    },

    /** Queues the failed and skipped records again (or those of `clientIds`) as a new round. */
    async retry(body: RetryBody): Promise<{ queued: number }> {
      if (!wants(await settings.row())) {
        throw badRequest(
          'The CRM sync is off: turn it on with PUT /api/admin/crm/config first',
          'CRM_NOT_ENABLED',
        )
      }
      return db.transaction(async (tx) => {
        const rows = await tx
          .update(crmSyncRecords)
          .set({ status: 'pending', attempts: 0, nextAttemptAt: null, updatedAt: clock.now() })
          .where(
            and(
              inArray(crmSyncRecords.status, ['failed', 'skipped']),
              body.clientIds ? inArray(crmSyncRecords.clientId, body.clientIds) : undefined,
            ),
          )
          .returning({ clientId: crmSyncRecords.clientId })
        await sendMany(
          jobs,
          CRM_SYNC_JOB,
          rows.map(({ clientId }) => ({ clientId, attempt: 0 })),
          { tx },
        )
        return { queued: rows.length }
      })
    },
  }
}

export type CrmSyncService = ReturnType<typeof createCrmSync>
