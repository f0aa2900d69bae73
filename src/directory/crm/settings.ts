import { eq, isNotNull } from 'drizzle-orm'
import type { Db, DbOrTx } from '../../db/index.ts'
import type { ConnectionCheck, TwentyClient, TwentyConnection } from '../../integrations/twenty/client.ts'
import type { Clock } from '../../lib/clock.ts'
import { type Envelope, EnvelopeError } from '../../lib/crypto.ts'
import { invalidInput } from '../../lib/errors.ts'
import { type AddressPolicy, checkUrl } from '../../lib/safe-http.ts'
import type { CrmConfig, TestConnectionBody, UpdateCrmConfigBody } from './schemas.ts'
import { crmCompanies, crmSettings, crmSyncRecords } from './tables.ts'

export type CrmSettingsRow = typeof crmSettings.$inferSelect

/** Bound into the key's envelope: a sealed value copied to another column cannot be opened. */
const API_KEY_CONTEXT = 'crm-settings:api-key'
const MASK = '••••'
/** A key shorter than this shows no characters at all. */
const HINT_MIN_LENGTH = 12

export interface CrmSettingsDeps {
  db: Db
  clock: Clock
  envelope: Envelope
  twenty: Pick<TwentyClient, 'check'>
  /** TWENTY_API_URL: the default base URL, whose host a base URL may always reach. */
  defaultBaseUrl: string
  policy: AddressPolicy
  /** Production: a base URL must be https (TWENTY_API_URL's host excepted). */
  requireHttps: boolean
}

const defaults = (now: Date): CrmSettingsRow => ({
  id: 1,
  enabled: false,
  baseUrl: null,
  apiKey: null,
  apiKeyHint: null,
  syncClients: true,
  syncCompanies: true,
  updatedBy: null,
  updatedAt: now,
})

/**
 * The CRM connection an admin sets (Twenty's base URL and API key, whether the sync runs and what it sends),
 * and the connection test. The key is sealed in the directory's envelope, answered only masked.
 */
export function createCrmSettings(deps: CrmSettingsDeps) {
  const { db, clock, envelope, twenty, defaultBaseUrl } = deps
  const defaultHost = new URL(defaultBaseUrl).hostname

  /** The row, or null before the first save. */
  async function row(executor: DbOrTx = db): Promise<CrmSettingsRow | null> {
    const [found] = await executor.select().from(crmSettings).where(eq(crmSettings.id, 1))
    return found ?? null
  }

  const effectiveUrl = (settings: Pick<CrmSettingsRow, 'baseUrl'> | null) =>
    settings?.baseUrl ?? defaultBaseUrl

  function configOf(settings: CrmSettingsRow | null): CrmConfig {
    return {
      enabled: settings?.enabled ?? false,
      baseUrl: effectiveUrl(settings),
      usesDefaultBaseUrl: !settings?.baseUrl,
      apiKey: settings?.apiKey ? `${MASK}${settings.apiKeyHint ?? ''}` : null,
      apiKeySet: Boolean(settings?.apiKey),
      sync: { clients: settings?.syncClients ?? true, companies: settings?.syncCompanies ?? true },
      updatedAt: settings?.updatedAt ?? null,
    }
  }

  /** A base URL the sync may call, without a trailing slash; a 400 naming `baseUrl` otherwise. */
  function checkedBaseUrl(raw: string): string {
    const value = raw.trim()
    const parsed = URL.parse(value)
    const trusted = parsed !== null && parsed.hostname === defaultHost
    const check = checkUrl(value, {
      requireHttps: deps.requireHttps && !trusted,
      policy: deps.policy,
    })
    if (!check.ok) throw invalidInput('baseUrl', check.reason, 'CRM_URL_REFUSED')
    if (check.url.search || check.url.hash) {
      throw invalidInput('baseUrl', 'must not have a query or a fragment', 'CRM_URL_REFUSED')
    }
    return value.replace(/\/+$/, '')
  }

  return {
    row,
    configOf,

    async config(): Promise<CrmConfig> {
      return configOf(await row())
    },

    /**
     * Where the sync talks to, with the key opened; throws EnvelopeError when the saved key cannot be
     * opened (DIRECTORY_ENCRYPTION_KEY changed since it was saved).
     */
    connectionOf(settings: CrmSettingsRow): TwentyConnection | null {
      if (!settings.apiKey) return null
      return { baseUrl: effectiveUrl(settings), apiKey: envelope.open(settings.apiKey, API_KEY_CONTEXT) }
    },

    /** Changes what the body names; the rest stays. Two admins saving at once are served in turn. */
    async update(body: UpdateCrmConfigBody, actorId: string): Promise<CrmConfig> {
      if (Object.keys(body).length === 0) {
        throw invalidInput('body', 'names no setting to change (enabled, baseUrl, apiKey, sync)')
      }
      const baseUrl = typeof body.baseUrl === 'string' ? checkedBaseUrl(body.baseUrl) : body.baseUrl
      const apiKey = typeof body.apiKey === 'string' ? body.apiKey.trim() : body.apiKey
      // Sealed before the transaction: a production instance without a key answers 400 first.
      const sealed = typeof apiKey === 'string' ? envelope.seal(apiKey, API_KEY_CONTEXT) : apiKey
      return db.transaction(async (tx) => {
        const now = clock.now()
        await tx.insert(crmSettings).values(defaults(now)).onConflictDoNothing()
        const [current] = await tx.select().from(crmSettings).where(eq(crmSettings.id, 1)).for('update')
        const next: CrmSettingsRow = { ...current!, updatedBy: actorId, updatedAt: now }
        if (body.enabled !== undefined) next.enabled = body.enabled
        if (baseUrl !== undefined) next.baseUrl = baseUrl === defaultBaseUrl ? null : baseUrl
        if (sealed !== undefined) {
          next.apiKey = sealed
          next.apiKeyHint = apiKey && apiKey.length >= HINT_MIN_LENGTH ? apiKey.slice(-4) : null
        }
        if (body.sync?.clients !== undefined) next.syncClients = body.sync.clients
        if (body.sync?.companies !== undefined) next.syncCompanies = body.sync.companies
        // A write-only key must not be readable by pointing the sync at another server.
        if (effectiveUrl(next) !== effectiveUrl(current!) && current!.apiKey && sealed === undefined) {
          throw invalidInput(
            'apiKey',
            'is required when the base URL changes: the saved key is never sent to another server',
            'CRM_NOT_CONFIGURED',
          )
        }
        if (next.enabled && !next.apiKey) {
          throw invalidInput(
            'apiKey',
            'is required to turn the sync on: no API key is saved',
            'CRM_NOT_CONFIGURED',
          )
        }
        await tx.update(crmSettings).set(next).where(eq(crmSettings.id, 1))
        // Another server is another CRM: its ids mean nothing there, so people and companies are found anew.
        if (effectiveUrl(next) !== effectiveUrl(current!)) {
          await tx.delete(crmCompanies)
          await tx
            .update(crmSyncRecords)
            .set({ personId: null, companyId: null })
            .where(isNotNull(crmSyncRecords.personId))
        }
        return configOf(next)
      })
    },

    /** One read from Twenty with the sent credentials, or the saved ones: what it answered, never a 500. */
    async testConnection(body: TestConnectionBody): Promise<ConnectionCheck> {
      const saved = await row()
      const baseUrl = body.baseUrl === undefined ? effectiveUrl(saved) : checkedBaseUrl(body.baseUrl)
      let apiKey = body.apiKey?.trim()
      // The saved key goes to the saved server only: another one is tried with a key sent for it.
      if (!apiKey && saved?.apiKey && baseUrl === effectiveUrl(saved)) {
        try {
          apiKey = envelope.open(saved.apiKey, API_KEY_CONTEXT)
        } catch (error) {
          if (!(error instanceof EnvelopeError)) throw error
          return {
            ok: false,
            status: null,
            message:
              'The saved API key cannot be decrypted (DIRECTORY_ENCRYPTION_KEY changed?): save it again',
          }
        }
      }
      if (!apiKey) {
        throw invalidInput(
          'apiKey',
          saved?.apiKey
            ? 'is required to try another base URL: the saved key is never sent to another server'
            : 'is required: no API key is saved',
          'CRM_NOT_CONFIGURED',
        )
      }
      return twenty.check({ baseUrl, apiKey })
    },
  }
}

export type CrmSettings = ReturnType<typeof createCrmSettings>
