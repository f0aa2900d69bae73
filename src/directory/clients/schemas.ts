import { type Static, type TSchema, Type } from 'typebox'
import { DateFilter, HttpUrl, NullableTimestamp, Query, Timestamp } from '../../http/schemas.ts'
import { PageMetaFields, PageQueryFields } from '../../lib/pagination.ts'
import { EmailAddress, Username } from '../accounts/rules.ts'
import { BulkResultFields } from '../bulk.ts'

/** Field lengths follow the client_profiles columns; bulk calls are capped so one request stays bounded. */
export const CLIENT_LIMITS = {
  displayNameMax: 100,
  bioMax: 2000,
  jobTitleMax: 100,
  companyMax: 200,
  industryMax: 100,
  phoneMax: 50,
  websiteMax: 500,
  locationMax: 200,
  avatarMax: 500,
  providerMax: 50,
  searchMax: 100,
  bulkMax: 100,
} as const

export const CLIENT_SORT_FIELDS = [
  'createdAt',
  'updatedAt',
  'name',
  'email',
  'company',
  'totalSubmissions',
] as const
export type ClientSortField = (typeof CLIENT_SORT_FIELDS)[number]

const EXAMPLE_CLIENT = {
  id: '4e6a8c0d-2f1b-4d3e-8a5c-7b9d1f3e5a70',
  userId: '7a1c9e3b-2d4f-4a6b-8c0d-1e2f3a4b5c6d',
  displayName: 'Ada',
  username: 'ada_l',
  email: 'ada@example.com',
  bio: 'Writes programs for engines that do not exist yet.',
  jobTitle: 'Analyst',
  company: 'Analytical Engines Ltd',
  industry: 'Software',
  phone: '+44 20 7946 0000',
  website: 'https://ada.example.com',
  location: 'London, UK',
  avatar: null,
  accountType: 'business',
  status: 'active',
  plan: 'standard',
  provider: 'credentials',
  emailVerified: true,
  twoFactorEnabled: false,
  totalSubmissions: 7,
  joinedAt: '2026-01-15T09:30:00.000Z',
  lastActiveAt: '2026-11-21T08:15:00.000Z',
  createdAt: '2026-01-15T09:30:00.000Z',
  updatedAt: '2026-11-20T16:45:00.000Z',
}

const EXAMPLE_STATS = {
  overview: {
    totalClients: 120,
    activeClients: 96,
    inactiveClients: 12,
    suspendedClients: 2,
    trialClients: 10,
  },
  growth: { newClientsToday: 1, newClientsThisWeek: 6, newClientsThisMonth: 18, growthRate: 12.5 },
  plans: { free: 70, standard: 38, premium: 12, conversionRate: 41.7 },
  accountTypes: { individual: 80, business: 34, enterprise: 6 },
  engagement: { averageSubmissions: 3.42, totalSubmissions: 410, activeThisWeek: 44, activeThisMonth: 81 },
  demographics: {
    topCountries: [{ country: 'UK', count: 31 }],
    topCompanies: [{ company: 'Analytical Engines Ltd', count: 3 }],
    topIndustries: [{ industry: 'Software', count: 40 }],
  },
  providers: { credentials: 104, google: 16 },
}

const AccountType = Type.Enum(['individual', 'business', 'enterprise'], { examples: ['individual'] })
const Status = Type.Enum(['active', 'inactive', 'suspended', 'trial'], { examples: ['active'] })
const Plan = Type.Enum(['free', 'standard', 'premium'], { examples: ['free'] })
const SortBy = Type.Enum(CLIENT_SORT_FIELDS, { default: 'createdAt' })
const Nullable = <T extends TSchema>(schema: T) =>
  // Null first: with type coercion on, a string branch tried first would turn null into ''.
  Type.Union([Type.Null(), schema])

const DisplayName = Type.String({ minLength: 1, maxLength: CLIENT_LIMITS.displayNameMax, examples: ['Ada'] })
const Text = (maxLength: number) => Type.String({ maxLength })
const Search = (description: string, example: string) =>
  Type.Optional(Type.String({ maxLength: CLIENT_LIMITS.searchMax, description, examples: [example] }))
/** SPEC.md: an ISO date (`YYYY-MM-DD`) or date-time. */
const DateBound = (description: string) => Type.Optional(DateFilter(description))

const ListFilterFields = {
  ...PageQueryFields,
  search: Search('case-insensitive substring of the display name or email', 'ada'),
  status: Type.Optional(Status),
  plan: Type.Optional(Plan),
  accountType: Type.Optional(AccountType),
  provider: Type.Optional(Type.String({ maxLength: CLIENT_LIMITS.providerMax, examples: ['credentials'] })),
}

export const ClientListQuery = Query(ListFilterFields)
export type ClientListQuery = Static<typeof ClientListQuery>

const DateRangeFields = {
  createdAfter: DateBound('created at or after; a bare date counts from the start of that day (UTC)'),
  createdBefore: DateBound('created at or before; a bare date includes that whole day (UTC)'),
}

export const DashboardQuery = Query({ ...ListFilterFields, ...DateRangeFields })
export type DashboardQuery = Static<typeof DashboardQuery>

export const AdvancedSearchQuery = Query({
  ...ListFilterFields,
  ...DateRangeFields,
  sortBy: SortBy,
  sortOrder: Type.Enum(['asc', 'desc'], { default: 'desc' }),
  emailDomain: Search('the part after @, e.g. example.com', 'example.com'),
  companySearch: Search('substring of the company', 'analytical'),
  locationSearch: Search('substring of the location', 'London'),
  industrySearch: Search('substring of the industry', 'software'),
  minSubmissions: Type.Optional(Type.Integer({ minimum: 0, examples: [1] })),
  maxSubmissions: Type.Optional(Type.Integer({ minimum: 0, examples: [50] })),
  emailVerified: Type.Optional(Type.Boolean()),
  twoFactorEnabled: Type.Optional(Type.Boolean()),
  hasAvatar: Type.Optional(Type.Boolean()),
  hasWebsite: Type.Optional(Type.Boolean()),
  hasPhone: Type.Optional(Type.Boolean()),
})
export type AdvancedSearchQuery = Static<typeof AdvancedSearchQuery>

export const CreateClientBody = Type.Object(
  {
    email: EmailAddress,
    displayName: Type.Optional(DisplayName),
    username: Type.Optional(Username),
    bio: Type.Optional(Text(CLIENT_LIMITS.bioMax)),
    jobTitle: Type.Optional(Text(CLIENT_LIMITS.jobTitleMax)),
    company: Type.Optional(Text(CLIENT_LIMITS.companyMax)),
    industry: Type.Optional(Text(CLIENT_LIMITS.industryMax)),
    phone: Type.Optional(Text(CLIENT_LIMITS.phoneMax)),
    website: Type.Optional(HttpUrl(CLIENT_LIMITS.websiteMax)),
    location: Type.Optional(Text(CLIENT_LIMITS.locationMax)),
    avatar: Type.Optional(HttpUrl(CLIENT_LIMITS.avatarMax)),
    accountType: Type.Optional(AccountType),
    status: Type.Optional(Status),
    plan: Type.Optional(Plan),
  },
  {
    examples: [
      {
        email: 'ada@example.com',
        displayName: 'Ada',
        company: 'Analytical Engines Ltd',
        website: 'https://ada.example.com',
        accountType: 'business',
        plan: 'standard',
      },
    ],
  },
)
export type CreateClientBody = Static<typeof CreateClientBody>

const UpdateFields = {
  displayName: Type.Optional(DisplayName),
  username: Type.Optional(Username),
  bio: Type.Optional(Nullable(Text(CLIENT_LIMITS.bioMax))),
  jobTitle: Type.Optional(Nullable(Text(CLIENT_LIMITS.jobTitleMax))),
  company: Type.Optional(Nullable(Text(CLIENT_LIMITS.companyMax))),
  status: Type.Optional(Status),
  plan: Type.Optional(Plan),
  accountType: Type.Optional(AccountType),
}

export const UpdateClientBody = Type.Object(UpdateFields, {
  examples: [{ displayName: 'Ada L.', company: null, plan: 'premium' }],
})
export type UpdateClientBody = Static<typeof UpdateClientBody>

const ClientId = Type.String({ minLength: 1, description: 'client profile id' })

export const BulkUpdateBody = Type.Object(
  {
    clients: Type.Array(Type.Object({ id: ClientId, ...UpdateFields }), {
      minItems: 1,
      maxItems: CLIENT_LIMITS.bulkMax,
    }),
  },
  {
    examples: [
      {
        clients: [
          { id: EXAMPLE_CLIENT.id, plan: 'premium' },
          { id: '2b4d6f80-1c3e-4a5b-9d7f-0e2a4c6e8a1b', status: 'suspended' },
        ],
      },
    ],
  },
)
export type BulkUpdateBody = Static<typeof BulkUpdateBody>

export const BulkDeleteBody = Type.Object(
  {
    clients: Type.Array(Type.Object({ id: ClientId }), { minItems: 1, maxItems: CLIENT_LIMITS.bulkMax }),
  },
  { examples: [{ clients: [{ id: EXAMPLE_CLIENT.id }, { id: '2b4d6f80-1c3e-4a5b-9d7f-0e2a4c6e8a1b' }] }] },
)
export type BulkDeleteBody = Static<typeof BulkDeleteBody>

export const ClientIdParams = Type.Object({
  clientId: Type.String({ description: 'the client profile id (a UUID)', examples: [EXAMPLE_CLIENT.id] }),
})

const NullableString = Type.Union([Type.String(), Type.Null()])

/** SPEC.md "Directory: client profile", with the advanced-search properties. */
export const Client = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    userId: Type.String({ format: 'uuid' }),
    displayName: Type.String({ examples: ['Ada'] }),
    username: Type.String({ examples: ['ada_l'] }),
    email: Type.String({ examples: ['ada@example.com'] }),
    bio: NullableString,
    jobTitle: NullableString,
    company: NullableString,
    industry: NullableString,
    phone: NullableString,
    website: NullableString,
    location: NullableString,
    avatar: NullableString,
    accountType: AccountType,
    status: Status,
    plan: Plan,
    provider: Type.String({ examples: ['credentials'] }),
    emailVerified: Type.Boolean(),
    twoFactorEnabled: Type.Boolean(),
    totalSubmissions: Type.Integer(),
    joinedAt: Timestamp,
    lastActiveAt: NullableTimestamp,
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { description: 'A client profile', examples: [EXAMPLE_CLIENT] },
)
export type Client = Static<typeof Client>

const ListMeta = Type.Object(PageMetaFields)
const EXAMPLE_META = { page: 1, limit: 10, total: 1, totalPages: 1 }

export const ClientListAnswer = Type.Object(
  {
    success: Type.Literal(true),
    data: Type.Object({ clients: Type.Array(Client) }),
    meta: ListMeta,
  },
  {
    description: 'A page of clients, newest first',
    examples: [{ success: true, data: { clients: [EXAMPLE_CLIENT] }, meta: EXAMPLE_META }],
  },
)

export const ClientAnswer = Type.Object(
  { success: Type.Literal(true), data: Client },
  { description: 'The client profile', examples: [{ success: true, data: EXAMPLE_CLIENT }] },
)

export const ClientCreatedAnswer = Type.Object(
  {
    success: Type.Literal(true),
    data: Type.Object({
      id: Type.String({ format: 'uuid' }),
      displayName: Type.String(),
      email: Type.String(),
      status: Status,
      plan: Plan,
      accountType: AccountType,
      createdAt: Timestamp,
    }),
    message: Type.String({ examples: ['Client created'] }),
  },
  {
    description: 'The created client profile',
    examples: [
      {
        success: true,
        data: {
          id: EXAMPLE_CLIENT.id,
          displayName: 'Ada',
          email: 'ada@example.com',
          status: 'active',
          plan: 'standard',
          accountType: 'business',
          createdAt: '2026-01-15T09:30:00.000Z',
        },
        message: 'Client created',
      },
    ],
  },
)

const Ranked = (key: string) =>
  Type.Array(Type.Object({ [key]: Type.String(), count: Type.Integer() }), { description: 'top 5' })

export const ClientStats = Type.Object(
  {
    overview: Type.Object({
      totalClients: Type.Integer(),
      activeClients: Type.Integer(),
      inactiveClients: Type.Integer(),
      suspendedClients: Type.Integer(),
      trialClients: Type.Integer(),
    }),
    growth: Type.Object({
      newClientsToday: Type.Integer(),
      newClientsThisWeek: Type.Integer({ description: 'since Monday 00:00 UTC' }),
      newClientsThisMonth: Type.Integer(),
      growthRate: Type.Number({ description: '% change of this month against last month, 1 decimal' }),
    }),
    plans: Type.Object({
      free: Type.Integer(),
      standard: Type.Integer(),
      premium: Type.Integer(),
      conversionRate: Type.Number({ description: '% of clients on a paid plan, 1 decimal' }),
    }),
    accountTypes: Type.Object({
      individual: Type.Integer(),
      business: Type.Integer(),
      enterprise: Type.Integer(),
    }),
    engagement: Type.Object({
      averageSubmissions: Type.Number({ description: '2 decimals' }),
      totalSubmissions: Type.Integer(),
      activeThisWeek: Type.Integer(),
      activeThisMonth: Type.Integer(),
    }),
    demographics: Type.Object({
      topCountries: Ranked('country'),
      topCompanies: Ranked('company'),
      topIndustries: Ranked('industry'),
    }),
    providers: Type.Record(Type.String(), Type.Integer(), { description: 'clients per sign-in provider' }),
  },
  { examples: [EXAMPLE_STATS] },
)
export type ClientStats = Static<typeof ClientStats>

export const ClientStatsAnswer = Type.Object(
  { success: Type.Literal(true), data: ClientStats },
  { description: 'Client statistics', examples: [{ success: true, data: EXAMPLE_STATS }] },
)

export const DashboardAnswer = Type.Object(
  {
    success: Type.Literal(true),
    data: Type.Object({ clients: Type.Array(Client), stats: ClientStats, meta: ListMeta }),
  },
  {
    description: 'A page of clients with the statistics of all clients',
    examples: [
      { success: true, data: { clients: [EXAMPLE_CLIENT], stats: EXAMPLE_STATS, meta: EXAMPLE_META } },
    ],
  },
)

export const AdvancedSearchAnswer = Type.Object(
  {
    success: Type.Literal(true),
    data: Type.Object({
      clients: Type.Array(Client),
      pagination: ListMeta,
      searchMetadata: Type.Object({
        appliedFilters: Type.Record(Type.String(), Type.Unknown(), {
          description: 'the filters and sort the search used',
        }),
        searchTime: Type.Number({ description: 'milliseconds' }),
      }),
    }),
  },
  {
    description: 'The matching clients, with the filters used',
    examples: [
      {
        success: true,
        data: {
          clients: [EXAMPLE_CLIENT],
          pagination: EXAMPLE_META,
          searchMetadata: {
            appliedFilters: { sortBy: 'createdAt', sortOrder: 'desc', emailDomain: 'example.com' },
            searchTime: 4.27,
          },
        },
      },
    ],
  },
)

export const BulkAnswer = Type.Object(
  {
    success: Type.Literal(true),
    message: Type.String({ examples: ['1 of 2 clients updated'] }),
    ...BulkResultFields,
  },
  {
    description: 'What happened to each item, by its index in `clients`',
    examples: [
      {
        success: true,
        message: '1 of 2 clients updated',
        results: [{ index: 0, id: EXAMPLE_CLIENT.id, success: true }],
        errors: [{ index: 1, id: '2b4d6f80-1c3e-4a5b-9d7f-0e2a4c6e8a1b', error: 'Client not found' }],
        summary: { total: 2, successful: 1, failed: 1 },
      },
    ],
  },
)

export const DeletedAnswer = Type.Object(
  { success: Type.Literal(true), message: Type.String({ examples: ['Client deleted'] }) },
  { description: 'Deleted', examples: [{ success: true, message: 'Client deleted' }] },
)
