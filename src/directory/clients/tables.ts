import { sql } from 'drizzle-orm'
import { boolean, index, integer, text, uuid, varchar } from 'drizzle-orm/pg-core'
import { timestamptz } from '../../db/columns.ts'
import { users } from '../accounts/tables.ts'
import { directorySchema } from '../schema.ts'

export const ACCOUNT_TYPES = ['individual', 'business', 'enterprise'] as const
export const CLIENT_STATUSES = ['active', 'inactive', 'suspended', 'trial'] as const
export const CLIENT_PLANS = ['free', 'standard', 'premium'] as const
export type AccountType = (typeof ACCOUNT_TYPES)[number]
export type ClientStatus = (typeof CLIENT_STATUSES)[number]
export type ClientPlan = (typeof CLIENT_PLANS)[number]

/** Notified by a trigger on every statement that writes `client_profiles` (migration 0005). */
export const CLIENT_PROFILES_CHANGED_CHANNEL = 'curio_client_profiles_changed'

/** The public-facing profile of a directory user (SPEC.md "Directory: client profile"). */
export const clientProfiles = directorySchema.table(
  'client_profiles',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .unique()
      .references(() => users.id, { onDelete: 'cascade' }),
    email: varchar('email', { length: 254 }).notNull(),
    displayName: varchar('display_name', { length: 100 }).notNull(),
    username: varchar('username', { length: 50 }).notNull().unique(),
    bio: text('bio'),
    jobTitle: varchar('job_title', { length: 100 }),
    company: varchar('company', { length: 200 }),
    industry: varchar('industry', { length: 100 }),
    phone: varchar('phone', { length: 50 }),
    website: varchar('website', { length: 500 }),
    location: varchar('location', { length: 200 }),
    avatar: varchar('avatar', { length: 500 }),
    accountType: text('account_type').$type<AccountType>().notNull().default('individual'),
    status: text('status').$type<ClientStatus>().notNull().default('active'),
    plan: text('plan').$type<ClientPlan>().notNull().default('free'),
    provider: varchar('provider', { length: 50 }).notNull().default('credentials'),
    emailVerified: boolean('email_verified').notNull().default(false),
    twoFactorEnabled: boolean('two_factor_enabled').notNull().default(false),
    totalSubmissions: integer('total_submissions').notNull().default(0),
    /** Moderation (the reports module): warnings given, and when the user was suspended or banned. */
    warningCount: integer('warning_count').notNull().default(0),
    /** Set with `status: 'suspended'`; cleared when an admin sets any other status. */
    suspendedAt: timestamptz('suspended_at'),
    /** A ban is a suspension for good: `status: 'suspended'` and this time. Cleared as a suspension is. */
    bannedAt: timestamptz('banned_at'),
    joinedAt: timestamptz('joined_at').notNull(),
    lastActiveAt: timestamptz('last_active_at'),
    createdAt: timestamptz('created_at').notNull(),
    updatedAt: timestamptz('updated_at').notNull(),
  },
  (table) => [
    index('client_profiles_created_idx').on(table.createdAt),
    // Trigram indexes serve the admin list's substring (ILIKE) search without a scan.
    index('client_profiles_display_name_trgm').using('gin', sql`${table.displayName} gin_trgm_ops`),
    index('client_profiles_email_trgm').using('gin', sql`${table.email} gin_trgm_ops`),
    index('client_profiles_company_trgm').using('gin', sql`${table.company} gin_trgm_ops`),
    index('client_profiles_status_idx').on(table.status),
    index('client_profiles_plan_idx').on(table.plan),
    index('client_profiles_account_type_idx').on(table.accountType),
    index('client_profiles_provider_idx').on(table.provider),
    // Advanced search filters by these together and pages newest first.
    index('client_profiles_segment_idx').on(
      table.status,
      table.plan,
      table.accountType,
      table.createdAt.desc(),
    ),
  ],
)
