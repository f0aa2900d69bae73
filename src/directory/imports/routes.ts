import type { App } from '../../http/app.ts'
import { describeRule, type RateLimit } from '../../http/rate-limit.ts'
import { viewerOf } from '../auth/guard.ts'
import { errors, metaOf } from '../http/schemas.ts'
import { RATE_LIMITS } from '../rate-limit.ts'
import {
  CreateImportBody,
  ImportAnswer,
  ImportListAnswer,
  ImportListQuery,
  ImportParams,
  QueuedImportAnswer,
} from './schemas.ts'
import type { ImportService } from './service.ts'

export function importRoutes(
  app: App,
  { imports, rateLimit, maxBytes }: { imports: ImportService; rateLimit: RateLimit; maxBytes: number },
) {
  app.post(
    '/api/admin/imports',
    {
      config: { access: 'admin' },
      // The file travels inside JSON, escaped: room for it twice over, then the service names the limit.
      bodyLimit: maxBytes * 2 + 64 * 1024,
      preHandler: rateLimit('POST /api/admin/imports', RATE_LIMITS.imports),
      schema: {
        tags: ['imports'],
        summary: 'Import items',
        description:
          'Queues an import of a whole directory from a file: `markdown` (an awesome list: `##`/`###` headings ' +
          'become categories, `- [Name](url) - description` items), `csv` (a header row naming item fields) or ' +
          '`json` (the JSON export’s shape). Give the file as `content`, or a `url` to fetch it from (through the ' +
          'SSRF-safe client, redirects followed and checked, at most `IMPORT_MAX_BYTES`). Items are matched by ' +
          'slug (given, or made from the name as item create makes it), else by URL: `upsert` gives a match the ' +
          'fields the file gives and leaves the rest, `create-only` leaves it alone; categories, tags and ' +
          'companies are made when missing. `dryRun` works out the same counts and errors and writes nothing. ' +
          'Imports run as durable jobs, one at a time (others wait as `pending`); a real run applies ' +
          '`IMPORT_BATCH_SIZE` rows per transaction, so a restart resumes after the last whole batch. Follow it ' +
          `with GET /api/admin/imports/{id}. 413 when the content is over \`IMPORT_MAX_BYTES\`. ${describeRule(RATE_LIMITS.imports)}`,
        body: CreateImportBody,
        response: {
          202: QueuedImportAnswer,
          ...errors(400, 401, [403, 'FORBIDDEN', 'CROSS_ORIGIN'], 413, 429),
        },
      },
    },
    async (req, reply) =>
      reply
        .code(202)
        .send({ success: true as const, data: await imports.create(req.body, viewerOf(req).user.id) }),
  )

  app.get(
    '/api/admin/imports',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['imports'],
        summary: 'List imports',
        description: 'Imports, newest first, each with its progress and result.',
        querystring: ImportListQuery,
        response: { 200: ImportListAnswer, ...errors(400, 401, 403) },
      },
    },
    async (req) => {
      const { items: data, meta } = await imports.list(req.query)
      return { success: true as const, data, meta: metaOf(meta) }
    },
  )

  app.get(
    '/api/admin/imports/:id',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['imports'],
        summary: 'An import',
        description:
          'An import’s status, its progress (rows done of the rows read) and its result so far: items created, ' +
          'updated, unchanged and skipped, and the errors with their line (Markdown, CSV) or item.',
        params: ImportParams,
        response: { 200: ImportAnswer, ...errors(401, 403, [404, 'IMPORT_NOT_FOUND']) },
      },
    },
    async (req) => ({ success: true as const, data: await imports.get(req.params.id) }),
  )
}
