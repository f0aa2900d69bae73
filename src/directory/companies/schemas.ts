import { type Static, Type } from 'typebox'
import { HttpUrl, Query, Timestamp } from '../../http/schemas.ts'
import { PageMetaFields, PageQueryFields } from '../../lib/pagination.ts'

/** A company's fields: the limits of their columns and of what the site shows. */
export const COMPANY_NAME_MIN_LENGTH = 2
export const COMPANY_NAME_MAX_LENGTH = 200
export const COMPANY_SLUG_MAX_LENGTH = 200
export const COMPANY_SLUG_PATTERN = '^[a-z0-9-]+$'
export const COMPANY_DESCRIPTION_MAX_LENGTH = 2000
export const COMPANY_URL_MAX_LENGTH = 2048
export const COMPANY_SEARCH_MAX_LENGTH = 100
/** How many companies the stats' `topCompanies` lists. */
export const TOP_COMPANIES = 10

const EXAMPLE = {
  id: '5b1e2c3d-4f5a-4b6c-8d7e-9f0a1b2c3d4e',
  slug: 'acme',
  name: 'Acme',
  description: 'Makers of fine anvils since 1949',
  website: 'https://acme.example.com',
  logoUrl: 'https://cdn.example.com/logos/acme.png',
  isActive: true,
  itemCount: 3,
  createdAt: '2026-01-15T09:30:00.000Z',
  updatedAt: '2026-02-02T16:05:00.000Z',
}

const Url = (description: string, example: string) =>
  HttpUrl(
    COMPANY_URL_MAX_LENGTH,
    `${description}; http(s) only, at most ${COMPANY_URL_MAX_LENGTH} characters`,
    example,
  )

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T, description?: string) =>
  Type.Union([schema, Type.Null()], description ? { description } : {})

const ItemCount = Type.Integer({
  minimum: 0,
  description: 'how many items name the company, whatever their status',
  examples: [EXAMPLE.itemCount],
})

export const Company = Type.Object(
  {
    id: Type.String({ format: 'uuid', examples: [EXAMPLE.id] }),
    slug: Type.String({ pattern: COMPANY_SLUG_PATTERN, examples: [EXAMPLE.slug] }),
    name: Type.String({ examples: [EXAMPLE.name] }),
    description: Nullable(Type.String({ examples: [EXAMPLE.description] })),
    website: Nullable(Type.String({ examples: [EXAMPLE.website] })),
    logoUrl: Nullable(Type.String({ examples: [EXAMPLE.logoUrl] })),
    isActive: Type.Boolean({ examples: [true] }),
    itemCount: ItemCount,
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { description: 'A company', examples: [EXAMPLE] },
)
export type Company = Static<typeof Company>

const fields = {
  name: Type.String({
    minLength: COMPANY_NAME_MIN_LENGTH,
    maxLength: COMPANY_NAME_MAX_LENGTH,
    pattern: '\\S',
    description: `${COMPANY_NAME_MIN_LENGTH} to ${COMPANY_NAME_MAX_LENGTH} characters once trimmed; unique whatever the case; stored as text`,
    examples: [EXAMPLE.name],
  }),
  slug: Type.String({
    minLength: 1,
    maxLength: COMPANY_SLUG_MAX_LENGTH,
    pattern: COMPANY_SLUG_PATTERN,
    description: 'unique; the slug of the name when omitted on create',
    examples: [EXAMPLE.slug],
  }),
  description: Nullable(
    Type.String({
      maxLength: COMPANY_DESCRIPTION_MAX_LENGTH,
      description: `at most ${COMPANY_DESCRIPTION_MAX_LENGTH} characters, stored as text`,
      examples: [EXAMPLE.description],
    }),
    'null: none',
  ),
  website: Nullable(Url('the company’s site', EXAMPLE.website), 'null: none'),
  logoUrl: Nullable(Url('its logo', EXAMPLE.logoUrl), 'null: none'),
  isActive: Type.Boolean({ description: '`false` deactivates the company', examples: [true] }),
}

export const CreateCompanyBody = Type.Object(
  {
    name: fields.name,
    slug: Type.Optional(fields.slug),
    description: Type.Optional(fields.description),
    website: Type.Optional(fields.website),
    logoUrl: Type.Optional(fields.logoUrl),
    isActive: Type.Optional(fields.isActive),
  },
  {
    examples: [
      {
        name: EXAMPLE.name,
        description: EXAMPLE.description,
        website: EXAMPLE.website,
        logoUrl: EXAMPLE.logoUrl,
      },
      { name: 'Acme Labs', slug: 'acme-labs' },
    ],
  },
)
export type CreateCompanyBody = Static<typeof CreateCompanyBody>

export const UpdateCompanyBody = Type.Partial(Type.Object(fields), {
  minProperties: 1,
  examples: [{ description: 'Anvils, rockets and more', website: null }, { isActive: false }],
})
export type UpdateCompanyBody = Static<typeof UpdateCompanyBody>

export const CompanyParams = Type.Object({
  id: Type.String({ description: 'the company’s id (a UUID)', examples: [EXAMPLE.id] }),
})

export const COMPANY_SORT_FIELDS = ['name', 'createdAt', 'itemCount'] as const

export const CompanyListQuery = Query({
  ...PageQueryFields,
  search: Type.Optional(
    Type.String({
      maxLength: COMPANY_SEARCH_MAX_LENGTH,
      description: 'case-insensitive substring of the name or slug',
      examples: ['acme'],
    }),
  ),
  isActive: Type.Optional(
    Type.Enum(['true', 'false'], { description: 'only active (or inactive) companies' }),
  ),
  sortBy: Type.Enum(COMPANY_SORT_FIELDS, { default: 'name' }),
  sortOrder: Type.Enum(['asc', 'desc'], { default: 'asc' }),
})
export type CompanyListQuery = Static<typeof CompanyListQuery>

export const CompanyListAnswer = Type.Object(
  { success: Type.Literal(true), data: Type.Array(Company), meta: Type.Object(PageMetaFields) },
  {
    description: 'A page of companies',
    examples: [{ success: true, data: [EXAMPLE], meta: { page: 1, limit: 10, total: 1, totalPages: 1 } }],
  },
)

export const CompanyAnswer = Type.Object(
  { success: Type.Literal(true), data: Company },
  { description: 'The company', examples: [{ success: true, data: EXAMPLE }] },
)

export const CompanyCreatedAnswer = Type.Object(
  { success: Type.Literal(true), data: Company },
  {
    description: 'The created company',
    examples: [{ success: true, data: { ...EXAMPLE, itemCount: 0, updatedAt: EXAMPLE.createdAt } }],
  },
)

export const CompanyUpdatedAnswer = Type.Object(
  { success: Type.Literal(true), data: Company },
  {
    description: 'The changed company',
    examples: [{ success: true, data: { ...EXAMPLE, isActive: false } }],
  },
)

export const CompanyDeleted = Type.Object(
  { success: Type.Literal(true), message: Type.String({ examples: ['Company deleted'] }) },
  { description: 'The company is gone', examples: [{ success: true, message: 'Company deleted' }] },
)

const CompanyUsage = Type.Object({
  id: Type.String({ format: 'uuid', examples: [EXAMPLE.id] }),
  name: Type.String({ examples: [EXAMPLE.name] }),
  itemCount: ItemCount,
})

export const CompanyStats = Type.Object({
  total: Type.Integer({ minimum: 0, examples: [25] }),
  active: Type.Integer({ minimum: 0, examples: [22] }),
  inactive: Type.Integer({ minimum: 0, examples: [3] }),
  withItems: Type.Integer({ minimum: 0, description: 'companies at least one item names', examples: [18] }),
  withoutItems: Type.Integer({ minimum: 0, description: 'companies no item names', examples: [7] }),
  topCompanies: Type.Array(CompanyUsage, {
    maxItems: TOP_COMPANIES,
    description: `the ${TOP_COMPANIES} with the most items, most first (then by name); those without items are not listed`,
  }),
})
export type CompanyStats = Static<typeof CompanyStats>

export const CompanyStatsAnswer = Type.Object(
  { success: Type.Literal(true), data: CompanyStats },
  {
    description: 'Company statistics',
    examples: [
      {
        success: true,
        data: {
          total: 25,
          active: 22,
          inactive: 3,
          withItems: 18,
          withoutItems: 7,
          topCompanies: [
            { id: EXAMPLE.id, name: EXAMPLE.name, itemCount: 12 },
            { id: '0d9c8b7a-6f5e-4d3c-9b2a-1f0e9d8c7b6a', name: 'Globex', itemCount: 4 },
          ],
        },
      },
    ],
  },
)
