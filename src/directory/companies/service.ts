import { and, asc, count, desc, eq, ne, type SQL, sql } from 'drizzle-orm'
import { foreignKeyViolation, onUniqueViolation } from '../../db/errors.ts'
import { anyContaining } from '../../db/filters.ts'
import type { Db, DbOrTx } from '../../db/index.ts'
import { countRows } from '../../db/queries.ts'
import type { Clock } from '../../lib/clock.ts'
import { conflict, invalidInput, notFound } from '../../lib/errors.ts'
import { isUuid } from '../../lib/ids.ts'
import { fetchPage, type PageOf } from '../../lib/pagination.ts'
import { slugify } from '../../lib/slug.ts'
import { type Clearable, COMPANIES_CONTENT, checkedName, contentWriter } from '../content.ts'
import type { ItemUsage } from '../usage.ts'
import {
  COMPANY_NAME_MAX_LENGTH,
  COMPANY_NAME_MIN_LENGTH,
  COMPANY_SLUG_MAX_LENGTH,
  type Company,
  type CompanyListQuery,
  type CompanyStats,
  type CreateCompanyBody,
  TOP_COMPANIES,
  type UpdateCompanyBody,
} from './schemas.ts'
import { companies } from './tables.ts'

export interface CompanyServiceDeps {
  db: Db
  clock: Clock
  /**
   * Caches that show company names (public item reads), cleared at once after this instance's write so it
   * reads its own writes; the other instances clear on the notification.
   */
  caches?: readonly Clearable[]
  /** How many items name each company (items/usage.ts). */
  usage: ItemUsage
}

/** The foreign key of `items.company_id`: it restricts deleting a company an item names. */
const ITEM_COMPANY_FOREIGN_KEY = 'items_company_id_companies_id_fk'

const nameTaken = () => conflict('A company with this name already exists', 'COMPANY_NAME_EXISTS')
const slugTaken = (slug: string) =>
  conflict(`A company with the slug "${slug}" already exists; give another slug`, 'COMPANY_SLUG_EXISTS')
const companyNotFound = () => notFound('Company not found', 'COMPANY_NOT_FOUND')
const companyInUse = (itemCount: number) =>
  conflict(
    `This company is in use: move its ${itemCount} ${itemCount === 1 ? 'item' : 'items'} to another company ` +
      'first, or deactivate it',
    'COMPANY_IN_USE',
  )

const checkName = (raw: string) =>
  checkedName(raw, { min: COMPANY_NAME_MIN_LENGTH, max: COMPANY_NAME_MAX_LENGTH })

const sameName = (name: string) => sql`lower(${companies.name}) = lower(${name})`

/** Companies: the makers behind items, with how many items name each. */
/** Companies an import made, in its transaction; one whose slug or name was taken meanwhile is left as it is. */
export async function insertImportedCompanies(
  tx: DbOrTx,
  rows: readonly { id: string; slug: string; name: string }[],
  at: Date,
) {
  if (rows.length === 0) return
  await tx
    .insert(companies)
    .values(rows.map((row) => ({ id: row.id, slug: row.slug, name: row.name, createdAt: at, updatedAt: at })))
    .onConflictDoNothing()
}

export function createCompanyService({ db, clock, caches = [], usage }: CompanyServiceDeps) {
  /** Runs a write and tells every instance, this one at once, that companies changed. */
  const write = contentWriter(db, COMPANIES_CONTENT, caches)

  const conflicts = (slug: string) =>
    onUniqueViolation({
      companies_name_lower_unique: nameTaken,
      companies_slug_unique: () => slugTaken(slug),
    })

  /** The companies matching `where`, each with its item count; the caller orders and pages. */
  function withCounts(executor: DbOrTx, where: SQL | undefined) {
    const counts = usage.counts(executor)
    const itemCount = sql<number>`coalesce(${counts.itemCount}, 0)`.mapWith(Number)
    return {
      itemCount,
      query: executor
        .select({
          id: companies.id,
          slug: companies.slug,
          name: companies.name,
          description: companies.description,
          website: companies.website,
          logoUrl: companies.logoUrl,
          isActive: companies.isActive,
          itemCount,
          createdAt: companies.createdAt,
          updatedAt: companies.updatedAt,
        })
        .from(companies)
        .leftJoin(counts, eq(counts.key, companies.id))
        .where(where)
        .$dynamic(),
    }
  }

  async function find(executor: DbOrTx, id: string): Promise<Company> {
    if (!isUuid(id)) throw companyNotFound()
    const [row] = await withCounts(executor, eq(companies.id, id)).query
    if (!row) throw companyNotFound()
    return row
  }

  /** 409 when another company has the name (any case) or the slug; the unique indexes decide races. */
  async function checkFree(tx: DbOrTx, fields: { name?: string; slug?: string }, except?: string) {
    const others = except === undefined ? undefined : ne(companies.id, except)
    if (fields.name !== undefined) {
      const [taken] = await tx
        .select({ id: companies.id })
        .from(companies)
        .where(and(sameName(fields.name), others))
      if (taken) throw nameTaken()
    }
    if (fields.slug !== undefined) {
      const [taken] = await tx
        .select({ id: companies.id })
        .from(companies)
        .where(and(eq(companies.slug, fields.slug), others))
      if (taken) throw slugTaken(fields.slug)
    }
  }

  return {
    list(query: CompanyListQuery): Promise<PageOf<Company>> {
      const search = query.search?.trim()
      const where = and(
        search ? anyContaining([companies.name, companies.slug], search) : undefined,
        query.isActive === undefined ? undefined : eq(companies.isActive, query.isActive === 'true'),
      )
      const direction = query.sortOrder === 'desc' ? desc : asc
      return fetchPage(query, {
        rows: (limit, offset) => {
          const { query: rows, itemCount } = withCounts(db, where)
          const first =
            query.sortBy === 'itemCount'
              ? [direction(itemCount), direction(companies.name)]
              : query.sortBy === 'createdAt'
                ? [direction(companies.createdAt)]
                : [direction(companies.name)]
          return rows
            .orderBy(...first, direction(companies.id))
            .limit(limit)
            .offset(offset)
        },
        total: () => countRows(db, companies, where),
      })
    },

    async stats(): Promise<CompanyStats> {
      const counts = usage.counts(db)
      const [[totals], topCompanies] = await Promise.all([
        db
          .select({
            total: count(),
            active: sql<number>`count(*) filter (where ${companies.isActive})`.mapWith(Number),
            withItems: sql<number>`count(${counts.key})`.mapWith(Number),
          })
          .from(companies)
          .leftJoin(counts, eq(counts.key, companies.id)),
        db
          .select({
            id: companies.id,
            name: companies.name,
            itemCount: sql<number>`${counts.itemCount}`.mapWith(Number),
          })
          .from(companies)
          .innerJoin(counts, eq(counts.key, companies.id))
          .orderBy(desc(counts.itemCount), asc(companies.name), asc(companies.id))
          .limit(TOP_COMPANIES),
      ])
      const total = totals?.total ?? 0
      const active = totals?.active ?? 0
      const withItems = totals?.withItems ?? 0
      return {
        total,
        active,
        inactive: total - active,
        withItems,
        withoutItems: total - withItems,
        topCompanies,
      }
    },

    get(id: string): Promise<Company> {
      return find(db, id)
    },

    async create(body: CreateCompanyBody): Promise<Company> {
      const name = checkName(body.name)
      const slug = body.slug ?? slugify(name, COMPANY_SLUG_MAX_LENGTH)
      if (!slug) {
        throw invalidInput('slug', 'is required: the name has no letters or digits to make one from')
      }
      return write(async (tx) => {
        await checkFree(tx, { name, slug })
        const now = clock.now()
        const [created] = await tx
          .insert(companies)
          .values({
            slug,
            name,
            description: body.description ?? null,
            website: body.website ?? null,
            logoUrl: body.logoUrl ?? null,
            isActive: body.isActive ?? true,
            createdAt: now,
            updatedAt: now,
          })
          .returning()
        if (!created) throw new Error('company insert returned no row')
        return { ...created, itemCount: 0 }
      }).catch(conflicts(slug))
    },

    /** Changes the fields sent; `isActive: false` deactivates, the way to retire a company items name. */
    async update(id: string, body: UpdateCompanyBody): Promise<Company> {
      if (!isUuid(id)) throw companyNotFound()
      const name = body.name === undefined ? undefined : checkName(body.name)
      return write(async (tx) => {
        await checkFree(
          tx,
          {
            ...(name === undefined ? {} : { name }),
            ...(body.slug === undefined ? {} : { slug: body.slug }),
          },
          id,
        )
        const [updated] = await tx
          .update(companies)
          .set({
            ...(name === undefined ? {} : { name }),
            ...(body.slug === undefined ? {} : { slug: body.slug }),
            ...(body.description === undefined ? {} : { description: body.description }),
            ...(body.website === undefined ? {} : { website: body.website }),
            ...(body.logoUrl === undefined ? {} : { logoUrl: body.logoUrl }),
            ...(body.isActive === undefined ? {} : { isActive: body.isActive }),
            updatedAt: clock.now(),
          })
          .where(eq(companies.id, id))
          .returning({ id: companies.id })
        if (!updated) throw companyNotFound()
        return find(tx, id)
      }).catch(conflicts(body.slug ?? ''))
    },

    /** Deletes a company no item names, for good; one in use is 409 `COMPANY_IN_USE`. */
    async delete(id: string): Promise<void> {
      if (!isUuid(id)) throw companyNotFound()
      await write(async (tx) => {
        // Locked first: an item taking the company meanwhile waits, then fails on the foreign key.
        const [row] = await tx
          .select({ id: companies.id })
          .from(companies)
          .where(eq(companies.id, id))
          .for('update')
        if (!row) throw companyNotFound()
        const itemCount = await usage.of(tx, id)
        if (itemCount > 0) throw companyInUse(itemCount)
        await tx.delete(companies).where(eq(companies.id, id))
      }).catch(async (error) => {
        // An item took the company between the count and the delete: the foreign key refused it.
        if (foreignKeyViolation(error)?.constraint === ITEM_COMPANY_FOREIGN_KEY) {
          throw companyInUse(Math.max(1, await usage.of(db, id)))
        }
        throw error
      })
    },
  }
}

export type CompanyService = ReturnType<typeof createCompanyService>
