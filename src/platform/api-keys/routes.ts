import type { App } from '../../http/app.ts'
import { invalidField } from '../../http/schemas.ts'
import { authOf } from '../http/guard.ts'
import { errors } from '../http/schemas.ts'
import { ApiKeyCreated, ApiKeyList, ApiKeyParams, ApiKeyRevoked, CreateApiKeyBody } from './schemas.ts'
import { type ApiKeyService, MAX_API_KEYS_PER_USER } from './service.ts'

const tags = ['api-keys']

export function apiKeyRoutes(app: App, { apiKeys }: { apiKeys: ApiKeyService }) {
  app.post(
    '/api/auth/api-keys',
    {
      config: { access: 'jwt' },
      schema: {
        tags,
        summary: 'Create an API key',
        description:
          'Issues a key (`svc_live_` and 64 hex characters) for scripts, sent as `x-api-key: <key>` or ' +
          '`Authorization: Bearer <key>`. The full key is in this answer only; the server keeps its SHA-256. ' +
          `At most ${MAX_API_KEYS_PER_USER} keys per user (400 \`API_KEY_LIMIT\`): every key counts, expired ` +
          'ones too, until it is revoked. `expiresAt` must be in the future.',
        body: CreateApiKeyBody,
        response: {
          200: ApiKeyCreated,
          ...errors(
            [400, invalidField('body.expiresAt', 'must be in the future'), 'API_KEY_LIMIT'],
            [401, 'UNAUTHORIZED', 'INVALID_TOKEN'],
            [403, 'API_KEY_NOT_ALLOWED'],
            413,
            415,
          ),
        },
      },
    },
    async (req, reply) => {
      reply.header('cache-control', 'no-store')
      return apiKeys.create(authOf(req).userId, req.body)
    },
  )

  app.get(
    '/api/auth/api-keys',
    {
      config: { access: 'jwt' },
      schema: {
        tags,
        summary: 'List API keys',
        description:
          'The caller’s keys, newest first, with their display prefix and last use; never the key itself.',
        response: {
          200: ApiKeyList,
          ...errors([401, 'UNAUTHORIZED', 'INVALID_TOKEN'], [403, 'API_KEY_NOT_ALLOWED']),
        },
      },
    },
    async (req) => apiKeys.list(authOf(req).userId),
  )

  app.delete(
    '/api/auth/api-keys/:id',
    {
      config: { access: 'jwt' },
      schema: {
        tags,
        summary: 'Revoke an API key',
        description:
          'Deletes the key for good: requests using it answer 401 from now on. 404 for an unknown key or ' +
          'another user’s.',
        params: ApiKeyParams,
        response: {
          200: ApiKeyRevoked,
          ...errors(
            [401, 'UNAUTHORIZED', 'INVALID_TOKEN'],
            [403, 'API_KEY_NOT_ALLOWED'],
            [404, 'API_KEY_NOT_FOUND'],
          ),
        },
      },
    },
    async (req) => {
      await apiKeys.revoke(authOf(req).userId, req.params.id)
      return { success: true as const }
    },
  )
}
