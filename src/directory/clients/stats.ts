import { and, asc, count, desc, gte, isNotNull, lt, type SQL, sql } from 'drizzle-orm'
import type { Db } from '../../db/index.ts'
import { DAY_MS } from '../../lib/time.ts'
import type { ClientStats } from './schemas.ts'
import { clientProfiles as c } from './tables.ts'

const TOP = 5

/** Calendar periods in UTC: today, the week from Monday, this month and last month. */
export function statsPeriods(now: Date) {
  const today = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()))
  const sinceMonday = (today.getUTCDay() + 6) % 7
  return {
    today,
    week: new Date(today.getTime() - sinceMonday * DAY_MS),
    month: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)),
    lastMonth: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1)),
  }
}

const counted = (condition: SQL | undefined) =>
  sql<number>`count(*) filter (where ${condition})`.mapWith(Number)
const countOf = (condition: SQL) => sql`count(*) filter (where ${condition})`

/** Most frequent non-empty values of one expression. */
function top(db: Db, value: SQL) {
  return db
    .select({ value: sql<string>`${value}`, count: count() })
    .from(c)
    .where(sql`${value} is not null`)
    .groupBy(value)
    .orderBy(desc(count()), asc(value))
    .limit(TOP)
}

/** SPEC.md's client statistics, every figure computed by the database. */
export async function computeClientStats(db: Db, now: Date): Promise<ClientStats> {
  const periods = statsPeriods(now)
  const thisMonth = countOf(gte(c.createdAt, periods.month)!)
  const lastMonth = countOf(and(gte(c.createdAt, periods.lastMonth), lt(c.createdAt, periods.month))!)
  const paid = countOf(sql`${c.plan} <> 'free'`)
  // The country is the last comma-separated part of the free-text location ("Lyon, France").
  const country = sql`nullif(trim(regexp_replace(${c.location}, '^.*,', '')), '')`
  const [[totals], countries, companies, industries, providers] = await Promise.all([
    db
      .select({
        totalClients: count(),
        activeClients: counted(sql`${c.status} = 'active'`),
        inactiveClients: counted(sql`${c.status} = 'inactive'`),
        suspendedClients: counted(sql`${c.status} = 'suspended'`),
        trialClients: counted(sql`${c.status} = 'trial'`),
        newClientsToday: counted(gte(c.createdAt, periods.today)),
        newClientsThisWeek: counted(gte(c.createdAt, periods.week)),
        newClientsThisMonth: sql<number>`${thisMonth}`.mapWith(Number),
        growthRate: sql<number>`case when ${lastMonth} = 0
          then case when ${thisMonth} > 0 then 100 else 0 end
          else round((${thisMonth} - ${lastMonth}) * 100.0 / ${lastMonth}, 1) end`.mapWith(Number),
        free: counted(sql`${c.plan} = 'free'`),
        standard: counted(sql`${c.plan} = 'standard'`),
        premium: counted(sql`${c.plan} = 'premium'`),
        conversionRate: sql<number>`coalesce(round(${paid} * 100.0 / nullif(count(*), 0), 1), 0)`.mapWith(
          Number,
        ),
        individual: counted(sql`${c.accountType} = 'individual'`),
        business: counted(sql`${c.accountType} = 'business'`),
        enterprise: counted(sql`${c.accountType} = 'enterprise'`),
        averageSubmissions: sql<number>`coalesce(round(avg(${c.totalSubmissions}), 2), 0)`.mapWith(Number),
        totalSubmissions: sql<number>`coalesce(sum(${c.totalSubmissions}), 0)`.mapWith(Number),
        activeThisWeek: counted(gte(c.lastActiveAt, periods.week)),
        activeThisMonth: counted(gte(c.lastActiveAt, periods.month)),
      })
      .from(c),
    top(db, country),
    top(db, sql`nullif(trim(${c.company}), '')`),
    top(db, sql`nullif(trim(${c.industry}), '')`),
    db
      .select({ provider: c.provider, count: count() })
      .from(c)
      .where(isNotNull(c.provider))
      .groupBy(c.provider),
  ])
  const t = totals!
  return {
    overview: {
      totalClients: t.totalClients,
      activeClients: t.activeClients,
      inactiveClients: t.inactiveClients,
      suspendedClients: t.suspendedClients,
      trialClients: t.trialClients,
    },
    growth: {
      newClientsToday: t.newClientsToday,
      newClientsThisWeek: t.newClientsThisWeek,
      newClientsThisMonth: t.newClientsThisMonth,
      growthRate: t.growthRate,
    },
    plans: { free: t.free, standard: t.standard, premium: t.premium, conversionRate: t.conversionRate },
    accountTypes: { individual: t.individual, business: t.business, enterprise: t.enterprise },
    engagement: {
      averageSubmissions: t.averageSubmissions,
      totalSubmissions: t.totalSubmissions,
      activeThisWeek: t.activeThisWeek,
      activeThisMonth: t.activeThisMonth,
    },
    demographics: {
      topCountries: countries.map((row) => ({ country: row.value, count: row.count })),
      topCompanies: companies.map((row) => ({ company: row.value, count: row.count })),
      topIndustries: industries.map((row) => ({ industry: row.value, count: row.count })),
    },
    providers: Object.fromEntries(providers.map((row) => [row.provider, row.count])),
  }
}
