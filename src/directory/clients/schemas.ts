import { type Static, type TSchema, Type } from 'typebox'
import { DateFilter, NullableTimestamp, Timestamp } from '../../http/schemas.ts'
import { PageMetaFields, PageQueryFields } from '../../lib/pagination.ts'
import { EmailAddress, Username } from '../accounts/rules.ts'

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

const AccountType = Type.Union(
  [Type.Literal('individual'), Type.Literal('business'), Type.Literal('enterprise')],
  { examples: ['individual'] },
)
const Status = Type.Union(
  [Type.Literal('active'), Type.Literal('inactive'), Type.Literal('suspended'), Type.Literal('trial')],
  { examples: ['active'] },
)
const Plan = Type.Union([Type.Literal('free'), Type.Literal('standard'), Type.Literal('premium')], {
  examples: ['free'],
})
const SortBy = Type.Union(
  [
    Type.Literal('createdAt'),
    Type.Literal('updatedAt'),
    Type.Literal('name'),
    Type.Literal('email'),
    Type.Literal('company'),
    Type.Literal('totalSubmissions'),
  ],
  { default: 'createdAt' },
)
const Nullable = <T extends TSchema>(schema: T) =>
  // Null first: with type coercion on, a string branch tried first would turn null into ''.
  Type.Union([Type.Null(), schema])

const DisplayName = Type.String({ minLength: 1, maxLength: CLIENT_LIMITS.displayNameMax, examples: ['Ada'] })
// http(s) only: these end up in links and <img src>.
const HttpUrl = (maxLength: number) => Type.String({ format: 'uri', pattern: '^https?://', maxLength })
const Text = (maxLength: number) => Type.String({ maxLength })
const Search = (description: string) =>
  Type.Optional(Type.String({ maxLength: CLIENT_LIMITS.searchMax, description }))
/** SPEC.md: an ISO date (`YYYY-MM-DD`) or date-time. */
const DateBound = (description: string) => Type.Optional(DateFilter(description))

const ListFilterFields = {
  ...PageQueryFields,
  search: Search('case-insensitive substring of the display name or email'),
  status: Type.Optional(Status),
  plan: Type.Optional(Plan),
  accountType: Type.Optional(AccountType),
  provider: Type.Optional(Type.String({ maxLength: CLIENT_LIMITS.providerMax, examples: ['credentials'] })),
}

export const ClientListQuery = Type.Object(ListFilterFields)
export type ClientListQuery = Static<typeof ClientListQuery>

const DateRangeFields = {
  createdAfter: DateBound('created at or after; a bare date counts from the start of that day (UTC)'),
  createdBefore: DateBound('created at or before; a bare date includes that whole day (UTC)'),
}

export const DashboardQuery = Type.Object({ ...ListFilterFields, ...DateRangeFields })
export type DashboardQuery = Static<typeof DashboardQuery>

export const AdvancedSearchQuery = Type.Object({
  ...ListFilterFields,
  ...DateRangeFields,
  sortBy: SortBy,
  sortOrder: Type.Union([Type.Literal('asc'), Type.Literal('desc')], { default: 'desc' }),
  emailDomain: Search('the part after @, e.g. example.com'),
  companySearch: Search('substring of the company'),
  locationSearch: Search('substring of the location'),
  industrySearch: Search('substring of the industry'),
  minSubmissions: Type.Optional(Type.Integer({ minimum: 0 })),
  maxSubmissions: Type.Optional(Type.Integer({ minimum: 0 })),
  emailVerified: Type.Optional(Type.Boolean()),
  twoFactorEnabled: Type.Optional(Type.Boolean()),
  hasAvatar: Type.Optional(Type.Boolean()),
  hasWebsite: Type.Optional(Type.Boolean()),
  hasPhone: Type.Optional(Type.Boolean()),
})
export type AdvancedSearchQuery = Static<typeof AdvancedSearchQuery>

export const CreateClientBody = Type.Object({
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
})
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

export const UpdateClientBody = Type.Object(UpdateFields)
export type UpdateClientBody = Static<typeof UpdateClientBody>

const ClientId = Type.String({ minLength: 1, description: 'client profile id' })

export const BulkUpdateBody = Type.Object({
  clients: Type.Array(Type.Object({ id: ClientId, ...UpdateFields }), {
    minItems: 1,
    maxItems: CLIENT_LIMITS.bulkMax,
  }),
})
export type BulkUpdateBody = Static<typeof BulkUpdateBody>

export const BulkDeleteBody = Type.Object({
  clients: Type.Array(Type.Object({ id: ClientId }), { minItems: 1, maxItems: CLIENT_LIMITS.bulkMax }),
})
export type BulkDeleteBody = Static<typeof BulkDeleteBody>

export const ClientIdParams = Type.Object({ clientId: Type.String() })

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
  { description: 'A client profile' },
)
export type Client = Static<typeof Client>

const ListMeta = Type.Object(PageMetaFields)

export const ClientListAnswer = Type.Object({
  success: Type.Literal(true),
  data: Type.Object({ clients: Type.Array(Client) }),
  meta: ListMeta,
})

export const ClientAnswer = Type.Object({ success: Type.Literal(true), data: Client })

export const ClientCreatedAnswer = Type.Object({
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
  message: Type.String(),
})

const Ranked = (key: string) =>
  Type.Array(Type.Object({ [key]: Type.String(), count: Type.Integer() }), { description: 'top 5' })

export const ClientStats = Type.Object({
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
})
export type ClientStats = Static<typeof ClientStats>

export const ClientStatsAnswer = Type.Object({ success: Type.Literal(true), data: ClientStats })

export const DashboardAnswer = Type.Object({
  success: Type.Literal(true),
  data: Type.Object({ clients: Type.Array(Client), stats: ClientStats, meta: ListMeta }),
})

export const AdvancedSearchAnswer = Type.Object({
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
})

/** Per-index outcomes of a bulk call: every item is tried, a failure never stops the others. */
const BulkResultFields = {
  results: Type.Array(Type.Object({ index: Type.Integer(), id: Type.String(), success: Type.Literal(true) })),
  errors: Type.Array(Type.Object({ index: Type.Integer(), id: Type.String(), error: Type.String() })),
  summary: Type.Object({ total: Type.Integer(), successful: Type.Integer(), failed: Type.Integer() }),
}
const BulkResult = Type.Object(BulkResultFields)
export type BulkResult = Static<typeof BulkResult>

export const BulkAnswer = Type.Object({
  success: Type.Literal(true),
  message: Type.String({ examples: ['2 of 3 clients updated'] }),
  ...BulkResultFields,
})

export const DeletedAnswer = Type.Object({ success: Type.Literal(true), message: Type.String() })
