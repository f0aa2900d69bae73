import type { App } from '../../http/app.ts'
import { invalidField } from '../../http/schemas.ts'
import { viewerOf } from '../auth/guard.ts'
import { errors, metaOf } from '../http/schemas.ts'
import {
  CrmConfigAnswer,
  RetryAnswer,
  RetryBody,
  SyncListAnswer,
  SyncQuery,
  TestConnectionAnswer,
  TestConnectionBody,
  UpdateCrmConfigBody,
} from './schemas.ts'
import type { CrmSettings } from './settings.ts'
import type { CrmSyncService } from './sync.ts'

const tags = ['crm']
const BASE = '/api/admin/crm'
const WRITE_403 = [403, 'FORBIDDEN', 'CROSS_ORIGIN'] as const

const KEY_MISSING = {
  code: 'ENCRYPTION_KEY_MISSING' as const,
  message:
    'DIRECTORY_ENCRYPTION_KEY is not set on this production instance, so it cannot store secrets: set it (64 hex characters) and restart',
}

/** The CRM integration (Twenty): its settings, a connection test, and the sync records. Admins only. */
export function crmRoutes(app: App, { settings, sync }: { settings: CrmSettings; sync: CrmSyncService }) {
  app.get(
    `${BASE}/config`,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Read the CRM settings',
        description:
          'Whether client changes are sent to Twenty, its base URL (TWENTY_API_URL until one is saved), ' +
          'whether an API key is saved and its last characters (`••••abcd`; the key itself is never ' +
          'answered), and which records are sent.',
        response: { 200: CrmConfigAnswer, ...errors(401, 403) },
      },
    },
    async () => ({ success: true as const, data: await settings.config() }),
  )

  app.put(
    `${BASE}/config`,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Change the CRM settings',
        description:
          'Changes what the body names; the rest stays. The API key is stored encrypted and answered only ' +
          'masked; `null` removes it, `baseUrl: null` goes back to TWENTY_API_URL. Turning the sync on needs ' +
          'a key (400 `CRM_NOT_CONFIGURED`), and so does a new base URL while a key is saved: the saved key ' +
          'is never sent to another server. A base URL that is not http(s) (https in production) or points ' +
          'at a private or internal address other than TWENTY_API_URL’s host is 400 `CRM_URL_REFUSED`. ' +
          'Answers the settings.',
        body: UpdateCrmConfigBody,
        response: {
          200: CrmConfigAnswer,
          ...errors(
            [
              400,
              invalidField('body.sync.clients', 'must be a boolean'),
              'CRM_URL_REFUSED',
              'CRM_NOT_CONFIGURED',
              KEY_MISSING,
            ],
            401,
            WRITE_403,
            413,
            415,
          ),
        },
      },
    },
    async (req) => ({
      success: true as const,
      data: await settings.update(req.body, viewerOf(req).user.id),
    }),
  )

  app.post(
    `${BASE}/test-connection`,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Try the CRM connection',
        description:
          'One read from Twenty (`GET /rest/companies?limit=1`) with the credentials sent, or the saved ' +
          'ones (the saved key only with the saved base URL). What Twenty answers — a refused key, an ' +
          'error, no answer within CRM_TIMEOUT_MS, a refused address — is reported in `data`, never as an ' +
          'error of this call.',
        body: TestConnectionBody,
        response: {
          200: TestConnectionAnswer,
          ...errors([400, 'CRM_URL_REFUSED', 'CRM_NOT_CONFIGURED'], 401, WRITE_403, 413, 415),
        },
      },
    },
    async (req) => ({ success: true as const, data: await settings.testConnection(req.body ?? {}) }),
  )

  app.get(
    `${BASE}/sync`,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'List the sync records',
        description:
          'Where each client’s sync stands, most recently changed first: `pending` (queued, running or ' +
          'waiting for a retry, `nextAttemptAt`), `synced`, `failed` after the last attempt (CRM_MAX_ATTEMPTS, ' +
          'or at once for a refusal such as a 401) with `lastError`, or `skipped`. `status` filters ' +
          '(`?status=failed`); `counts` covers every record.',
        querystring: SyncQuery,
        response: {
          200: SyncListAnswer,
          ...errors(
            [400, invalidField('query.status', 'must be one of "pending", "synced", "failed", "skipped"')],
            401,
            403,
          ),
        },
      },
    },
    async (req) => {
      const { items: data, meta, counts } = await sync.list(req.query)
      return { success: true as const, data, meta: metaOf(meta), counts }
    },
  )

  app.post(
    `${BASE}/sync/retry`,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Queue failed syncs again',
        description:
          'Queues every `failed` or `skipped` record again (or only those of `clientIds`), each from its ' +
          'first attempt, with the client’s latest change. 400 `CRM_NOT_ENABLED` while the sync is off.',
        body: RetryBody,
        response: {
          200: RetryAnswer,
          ...errors(
            [400, invalidField('body.clientIds.0', 'must match format "uuid"'), 'CRM_NOT_ENABLED'],
            401,
            WRITE_403,
            413,
            415,
          ),
        },
      },
    },
    async (req) => ({ success: true as const, data: await sync.retry(req.body ?? {}) }),
  )
}
