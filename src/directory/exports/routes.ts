import type { App } from '../../http/app.ts'
import { describeRule, type RateLimit } from '../../http/rate-limit.ts'
import { invalidField } from '../../http/schemas.ts'
import { errors } from '../http/schemas.ts'
import { RATE_LIMITS } from '../rate-limit.ts'
import { CSV_COLUMNS } from '../transfer/csv.ts'
import {
  CSV_EXAMPLE,
  EXPORT_MEDIA_TYPES,
  ExportJson,
  ExportQuery,
  JSON_EXAMPLE,
  MARKDOWN_EXAMPLE,
} from './schemas.ts'
import type { ExportService } from './service.ts'

/** `GET /api/admin/exports`: the whole directory as a file, for the admins. */
export function exportRoutes(
  app: App,
  { exports, rateLimit }: { exports: ExportService; rateLimit: RateLimit },
) {
  const { markdown, csv, json } = EXPORT_MEDIA_TYPES
  app.get(
    '/api/admin/exports',
    {
      config: { access: 'admin' },
      preHandler: rateLimit('GET /api/admin/exports', RATE_LIMITS.itemsExport),
      schema: {
        tags: ['items'],
        summary: 'Export the whole directory as a file',
        description:
          'The directory as an attachment named after the site (`{site-name}.md|csv|json`), streamed as it is ' +
          'read a thousand items at a time, so it costs the server the same memory at any size. The same ' +
          'directory gives the same bytes (no date is written), and importing a file into an empty directory ' +
          'then exporting it again gives that file back. ' +
          `\`format=markdown\` (\`${markdown}\`): an awesome list, \`# \` the site’s name, \`> \` its description, ` +
          'a `## Contents` list, then a `## ` section per category with published items in the site’s order, ' +
          'each item `- [name](url) - description` (its page on the site when it has no URL), newest first, ' +
          'and last `## Other` for items without a category; drafts and other unpublished items are left out. ' +
          `\`format=csv\` (\`${csv}\`): RFC 4180, CRLF, the header \`${CSV_COLUMNS.join(',')}\`, one row per ` +
          'item whatever its status, by slug; tags joined by `; `; cells a spreadsheet would run as a formula ' +
          "(starting with = + - @, tab or CR) are prefixed with `'`, which an import removes. " +
          `\`format=json\` (\`${json}\`): \`{version: 1, site, categories, tags, items}\`, every category and ` +
          'tag by name, every item by slug, one per line. An item written or removed during the export may or ' +
          `may not be in it. ${describeRule(RATE_LIMITS.itemsExport)}.`,
        querystring: ExportQuery,
        produces: [markdown, csv, json],
        response: {
          200: {
            description: 'The file, as an attachment',
            headers: {
              'Content-Disposition': {
                type: 'string',
                examples: ['attachment; filename="coffee-atlas.md"'],
              },
            },
            content: {
              [markdown]: { schema: { type: 'string' }, example: MARKDOWN_EXAMPLE },
              [csv]: { schema: { type: 'string' }, example: CSV_EXAMPLE },
              [json]: { schema: ExportJson, example: JSON_EXAMPLE },
            },
          },
          ...errors(
            [400, invalidField('query.format', 'must be equal to one of the allowed values')],
            401,
            403,
            429,
          ),
        },
      },
    },
    async (req, reply) => {
      const file = await exports.stream(req.query.format)
      return reply
        .type(file.type)
        .header('content-disposition', `attachment; filename="${file.filename}"`)
        .header('cache-control', 'no-store')
        .send(file.body as never)
    },
  )
}
