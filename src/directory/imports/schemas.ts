import { type Static, type TSchema, Type } from 'typebox'
import { HttpUrl, NullableTimestamp, Query, Timestamp } from '../../http/schemas.ts'
import { PageMetaFields, PageQueryFields } from '../../lib/pagination.ts'
import { IMPORT_FORMATS, IMPORT_MODES, IMPORT_STATUSES } from './tables.ts'

/** Issues an import keeps to show (the count covers them all). */
export const IMPORT_ERRORS_KEPT = 500

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()])
const Count = (example: number, description: string) => Type.Integer({ examples: [example], description })

const EXAMPLE_MARKDOWN = `# Awesome Coffee

> The independent coffee roasters of Europe.

## Roasters

- [Blue Bottle](https://bluebottlecoffee.com) - Small-batch roaster with cafés in five cities.
- [Square Mile](https://shop.squaremilecoffee.com): London roaster since 2008.
`

export const CreateImportBody = Type.Object(
  {
    format: Type.Enum([...IMPORT_FORMATS], {
      description:
        '`markdown`: an awesome list; `csv`: a header row naming item fields; `json`: the shape of the JSON export',
      examples: ['markdown'],
    }),
    content: Type.Optional(
      Type.String({
        minLength: 1,
        description: 'the file itself (exactly one of `content` and `url`), at most `IMPORT_MAX_BYTES` bytes',
        examples: [EXAMPLE_MARKDOWN],
      }),
    ),
    url: Type.Optional(
      HttpUrl(
        2048,
        'where to fetch the file (exactly one of `content` and `url`), e.g. the raw address of an awesome list on ' +
          'GitHub; fetched through the SSRF-safe client, at most `IMPORT_MAX_BYTES` bytes',
        'https://raw.githubusercontent.com/example/awesome-coffee/main/README.md',
      ),
    ),
    dryRun: Type.Optional(
      Type.Boolean({
        default: false,
        description: 'work out what the import would do (the same counts and errors) and write nothing',
      }),
    ),
    mode: Type.Optional(
      Type.Enum([...IMPORT_MODES], {
        default: 'upsert',
        description:
          '`upsert`: items already there get the fields the file gives; `create-only`: they are left alone (skipped)',
      }),
    ),
  },
  {
    additionalProperties: false,
    examples: [
      { format: 'markdown', content: EXAMPLE_MARKDOWN, dryRun: true },
      {
        format: 'markdown',
        url: 'https://raw.githubusercontent.com/example/awesome-coffee/main/README.md',
        mode: 'create-only',
      },
    ],
  },
)
export type CreateImportBody = Static<typeof CreateImportBody>

const Issue = Type.Object(
  {
    line: Type.Optional(
      Type.Integer({ description: 'the line of the file (Markdown, CSV)', examples: [12] }),
    ),
    item: Type.Optional(
      Type.String({ description: 'the item, by name or place', examples: ['Blue Bottle'] }),
    ),
    message: Type.String({ examples: ['the link is not http(s): "CONTRIBUTING.md"'] }),
  },
  { description: 'a row the import could not read or apply' },
)

const EXAMPLE_IMPORT = {
  id: '2b4d6f8a-0c2e-4a6b-8d0f-1a3c5e7b9d2f',
  format: 'markdown' as const,
  mode: 'upsert' as const,
  dryRun: false,
  status: 'completed' as const,
  sourceUrl: null,
  progress: { done: 2, total: 2 },
  result: {
    created: 1,
    updated: 1,
    unchanged: 0,
    skipped: 0,
    errors: [{ line: 9, message: 'no link: an item is written "- [Name](https://…) - description"' }],
    errorCount: 1,
  },
  failure: null,
  createdAt: '2026-11-27T10:00:00.000Z',
  startedAt: '2026-11-27T10:00:00.200Z',
  finishedAt: '2026-11-27T10:00:01.100Z',
}

export const Import = Type.Object(
  {
    id: Type.String({ examples: [EXAMPLE_IMPORT.id] }),
    format: Type.Enum([...IMPORT_FORMATS], { examples: ['markdown'] }),
    mode: Type.Enum([...IMPORT_MODES], { examples: ['upsert'] }),
    dryRun: Type.Boolean({ description: 'nothing is written; the result says what a real run would do' }),
    status: Type.Enum([...IMPORT_STATUSES], {
      description:
        '`pending`: waiting for its turn (one import runs at a time); `running`; `completed`; `failed` (`failure` says why)',
      examples: ['completed'],
    }),
    sourceUrl: Nullable(Type.String({ description: 'the `url` it was fetched from' })),
    progress: Type.Object(
      {
        done: Count(2, 'rows applied (or, in a dry run, worked out)'),
        total: Count(2, 'rows read from the file; 0 until it is read'),
      },
      { description: 'how far it is' },
    ),
    result: Type.Optional(
      Type.Object(
        {
          created: Count(1, 'items created'),
          updated: Count(1, 'items that got changed fields'),
          unchanged: Count(0, 'items already as the file gives them'),
          skipped: Count(0, 'rows left alone: their item exists (create-only) or the row has an error'),
          errors: Type.Array(Issue, {
            description: `what could not be read or applied, in file order (the first ${IMPORT_ERRORS_KEPT})`,
          }),
          errorCount: Count(1, 'all the errors, shown or not'),
        },
        { description: 'what it did so far; there once it has started' },
      ),
    ),
    failure: Nullable(
      Type.String({
        description:
          'why a failed import stopped; on a running one, why its last attempt failed (it is tried again)',
        examples: ['the file could not be fetched: HTTP 404'],
      }),
    ),
    createdAt: Timestamp,
    startedAt: NullableTimestamp,
    finishedAt: NullableTimestamp,
  },
  { description: 'an import of items into the directory' },
)
export type Import = Static<typeof Import>

export const ImportAnswer = Type.Object(
  { success: Type.Literal(true), data: Import },
  { description: 'The import', examples: [{ success: true, data: EXAMPLE_IMPORT }] },
)

export const QueuedImportAnswer = Type.Object(
  { success: Type.Literal(true), data: Import },
  {
    description: 'The import is queued: follow it with GET /api/admin/imports/{id}',
    examples: [
      {
        success: true,
        data: {
          ...EXAMPLE_IMPORT,
          status: 'pending',
          progress: { done: 0, total: 0 },
          result: undefined,
          startedAt: null,
          finishedAt: null,
        },
      },
    ],
  },
)

export const ImportListQuery = Query({ ...PageQueryFields })
export type ImportListQuery = Static<typeof ImportListQuery>

export const ImportListAnswer = Type.Object(
  { success: Type.Literal(true), data: Type.Array(Import), meta: Type.Object(PageMetaFields) },
  {
    description: 'Imports, newest first',
    examples: [
      { success: true, data: [EXAMPLE_IMPORT], meta: { page: 1, limit: 10, total: 1, totalPages: 1 } },
    ],
  },
)

export const ImportParams = Type.Object({
  id: Type.String({ maxLength: 100, description: 'the import’s id', examples: [EXAMPLE_IMPORT.id] }),
})
