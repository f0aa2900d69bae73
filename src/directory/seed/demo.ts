import { eq, inArray, sql } from 'drizzle-orm'
import type { Db, DbOrTx } from '../../db/index.ts'
import { notify } from '../../db/notifications.ts'
import type { Clock } from '../../lib/clock.ts'
import { slugify } from '../../lib/slug.ts'
import { DAY_MS } from '../../lib/time.ts'
import { normaliseEmail } from '../accounts/rules.ts'
import { createAccountService } from '../accounts/service.ts'
import { users } from '../accounts/tables.ts'
import { categories } from '../categories/tables.ts'
import { createProfileService } from '../clients/profiles.ts'
import { collectionItems, collections } from '../collections/tables.ts'
import { companies } from '../companies/tables.ts'
import {
  CATEGORIES_CONTENT,
  COLLECTIONS_CONTENT,
  COMPANIES_CONTENT,
  CONTENT_CHANGED_CHANNEL,
  FEATURED_CONTENT,
  ITEMS_CONTENT,
  TAGS_CONTENT,
} from '../content.ts'
import { featuredItems } from '../featured/tables.ts'
import { type ItemStatus, itemHistory, items, itemTags } from '../items/tables.ts'
import { USER_ROLE_ID } from '../roles/tables.ts'
import { tags } from '../tags/tables.ts'
import {
  DEMO_CATEGORIES,
  DEMO_CITIES,
  DEMO_COLLECTIONS,
  DEMO_COMPANIES,
  DEMO_MEMBERS,
  DEMO_TAGS,
  productDescription,
  productName,
  randomSequence,
} from './demo-data.ts'

export const DEMO_ITEM_COUNT = 300
const FEATURED_COUNT = 8

export interface SeedSummary {
  /** What this run added; a second run adds nothing. */
  added: Record<
    'categories' | 'tags' | 'companies' | 'items' | 'collections' | 'featured' | 'members',
    number
  >
}

/** Statuses in the proportions of a living site: mostly published, some waiting, a few drafts and rejects. */
function statusOf(roll: number): ItemStatus {
  if (roll < 0.86) return 'published'
  if (roll < 0.94) return 'pending'
  if (roll < 0.97) return 'draft'
  return 'rejected'
}

/** Members who submitted the pending items: accounts without a password (they cannot sign in). */
async function ensureMembers(db: Db, clock: Clock): Promise<{ ids: string[]; added: number }> {
  const accounts = createAccountService({ db, clock })
  const profiles = createProfileService({ db, clock, accounts })
  const emails = DEMO_MEMBERS.map((member) => normaliseEmail(member.email))
  const existing = await db
    .select({ id: users.id, email: users.email })
    .from(users)
    .where(inArray(users.email, emails))
  const known = new Map(existing.map((row) => [row.email, row.id]))
  let added = 0
  for (const member of DEMO_MEMBERS) {
    if (known.has(normaliseEmail(member.email))) continue
    const { user } = await profiles.openAccount(
      { email: member.email, passwordHash: null, name: member.name, roleId: USER_ROLE_ID, provider: 'demo' },
      { company: member.company ?? undefined, jobTitle: member.jobTitle, industry: 'Software' },
    )
    known.set(user.email, user.id)
    added++
  }
  return { ids: emails.map((email) => known.get(email)!), added }
}

/**
 * Fills the directory with a demo site: categories, tags, companies, a few hundred items (mostly published,
 * with locations, tags and companies), collections, a featured shelf and a few members. Everything has a
 * fixed slug or email and is only added when missing, so a second run changes nothing. Running instances
 * are told, as by any content write, and drop what they cached.
 */
export async function seedDemo({ db, clock }: { db: Db; clock: Clock }): Promise<SeedSummary> {
  const random = randomSequence(20261122)
  const now = clock.now()
  const members = await ensureMembers(db, clock)

  return db.transaction(async (tx) => {
    const categoryRows = DEMO_CATEGORIES.map((name, position) => ({
      id: slugify(name, 100),
      name,
      sortOrder: 1000 + position,
      createdAt: now,
      updatedAt: now,
    }))
    const addedCategories = await tx
      .insert(categories)
      .values(categoryRows)
      .onConflictDoNothing()
      .returning({ id: categories.id })

    const tagRows = DEMO_TAGS.map((name) => ({
      id: slugify(name, 100),
      name,
      createdAt: now,
      updatedAt: now,
    }))
    const addedTags = await tx.insert(tags).values(tagRows).onConflictDoNothing().returning({ id: tags.id })

    const addedCompanies = await tx
      .insert(companies)
      .values(
        DEMO_COMPANIES.map((name) => ({
          slug: slugify(name, 200),
          name,
          website: `https://${slugify(name, 60)}.example.com`,
          description: `${name} makes software for people who care about their tools.`,
          createdAt: now,
          updatedAt: now,
        })),
      )
      .onConflictDoNothing()
      .returning({ id: companies.id })
    const companyIds = (
      await tx
        .select({ id: companies.id })
        .from(companies)
        .where(
          inArray(
            companies.slug,
            DEMO_COMPANIES.map((name) => slugify(name, 200)),
          ),
        )
    ).map((row) => row.id)

    // Every item is drawn in order from the fixed seed, whether or not it is already there.
    const drafts = Array.from({ length: DEMO_ITEM_COUNT }, (_, index) => {
      const name = productName(index)
      const category = random.pick(DEMO_CATEGORIES)
      const status = statusOf(random.next())
      const remote = random.next() < 0.2
      const place = random.pick(DEMO_CITIES)
      const created = new Date(
        now.getTime() - (DEMO_ITEM_COUNT - index) * DAY_MS * 1.2 - random.below(DAY_MS),
      )
      const tagCount = random.below(4)
      const itemTagIds = [
        ...new Set(Array.from({ length: tagCount }, () => slugify(random.pick(DEMO_TAGS), 100))),
      ]
      const companyId = random.next() < 0.6 && companyIds.length > 0 ? random.pick(companyIds) : null
      const slug = slugify(name, 200)
      return {
        row: {
          slug,
          name,
          description: productDescription(random, name, category),
          url: `https://${slug}.example.com`,
          iconUrl: `https://cdn.example.com/demo/icons/${slug}.png`,
          imageUrl: random.next() < 0.5 ? `https://cdn.example.com/demo/covers/${slug}.jpg` : null,
          categoryId: slugify(category, 100),
          companyId,
          status,
          address: remote ? null : `${1 + random.below(300)} Demo Street`,
          city: remote ? null : place.city,
          country: remote ? null : place.country,
          latitude: remote ? null : place.latitude + (random.next() - 0.5) / 20,
          longitude: remote ? null : place.longitude + (random.next() - 0.5) / 20,
          isRemote: remote,
          serviceArea: remote ? random.pick(['Worldwide', 'EU', 'North America', 'Asia-Pacific']) : null,
          submittedBy: status === 'published' && random.next() < 0.8 ? null : random.pick(members.ids),
          publishedAt: status === 'published' ? new Date(created.getTime() + DAY_MS) : null,
          createdAt: created,
          updatedAt: created,
        },
        tagIds: itemTagIds,
      }
    })

    const added = await tx
      .insert(items)
      .values(drafts.map((draft) => draft.row))
      .onConflictDoNothing()
      .returning({ id: items.id, slug: items.slug, categoryId: items.categoryId, status: items.status })
    const bySlug = new Map(drafts.map((draft) => [draft.row.slug, draft]))
    const tagRowsOfNew = added.flatMap((item) =>
      bySlug.get(item.slug)!.tagIds.map((tagId) => ({ itemId: item.id, tagId })),
    )
    if (tagRowsOfNew.length > 0) await tx.insert(itemTags).values(tagRowsOfNew).onConflictDoNothing()
    if (added.length > 0) {
      await tx.insert(itemHistory).values(
        added.map((item) => ({
          itemId: item.id,
          actorId: bySlug.get(item.slug)!.row.submittedBy,
          action: 'created',
          changes: [{ field: 'status', from: null, to: item.status }],
          note: 'demo content',
          createdAt: bySlug.get(item.slug)!.row.createdAt,
        })),
      )
    }
    await countPublished(tx, added)

    const published = drafts.filter((draft) => draft.row.status === 'published').map((draft) => draft.row)
    const addedCollections = await seedCollections(
      tx,
      random,
      now,
      published.map((row) => row.slug),
    )
    const addedFeatured = await seedFeatured(
      tx,
      now,
      published.slice(-FEATURED_COUNT * 3).filter((_, i) => i % 3 === 0),
    )

    for (const payload of [
      CATEGORIES_CONTENT,
      TAGS_CONTENT,
      COMPANIES_CONTENT,
      ITEMS_CONTENT,
      COLLECTIONS_CONTENT,
      FEATURED_CONTENT,
    ]) {
      await notify(tx, CONTENT_CHANGED_CHANNEL, payload)
    }
    return {
      added: {
        categories: addedCategories.length,
        tags: addedTags.length,
        companies: addedCompanies.length,
        items: added.length,
        collections: addedCollections,
        featured: addedFeatured,
        members: members.added,
      },
    }
  })
}

/** Each category's published count goes up by the published items added to it (as item writes do). */
async function countPublished(tx: DbOrTx, added: { categoryId: string | null; status: string }[]) {
  const perCategory = new Map<string, number>()
  for (const item of added) {
    if (item.status === 'published' && item.categoryId) {
      perCategory.set(item.categoryId, (perCategory.get(item.categoryId) ?? 0) + 1)
    }
  }
  for (const [categoryId, delta] of perCategory) {
    await tx
      .update(categories)
      .set({ itemCount: sql`${categories.itemCount} + ${delta}` })
      .where(eq(categories.id, categoryId))
  }
}

/** The demo collections, each with 8 to 15 published items in order; only missing collections are filled. */
async function seedCollections(
  tx: DbOrTx,
  random: ReturnType<typeof randomSequence>,
  now: Date,
  slugs: string[],
) {
  const created = await tx
    .insert(collections)
    .values(
      DEMO_COLLECTIONS.map((collection) => ({
        slug: slugify(collection.name, 200),
        name: collection.name,
        description: collection.description,
        createdAt: now,
        updatedAt: now,
      })),
    )
    .onConflictDoNothing()
    .returning({ id: collections.id })
  const picks = DEMO_COLLECTIONS.map(() => {
    const size = 8 + random.below(8)
    return [...new Set(Array.from({ length: size }, () => random.pick(slugs)))]
  })
  if (created.length === 0) return 0
  const ids = await tx
    .select({ id: items.id, slug: items.slug })
    .from(items)
    .where(inArray(items.slug, [...new Set(picks.flat())]))
  const itemIdOf = new Map(ids.map((row) => [row.slug, row.id]))
  const createdIds = new Set(created.map((row) => row.id))
  const all = await tx
    .select({ id: collections.id, slug: collections.slug })
    .from(collections)
    .where(
      inArray(
        collections.slug,
        DEMO_COLLECTIONS.map((collection) => slugify(collection.name, 200)),
      ),
    )
  const rows = DEMO_COLLECTIONS.flatMap((collection, index) => {
    const id = all.find((row) => row.slug === slugify(collection.name, 200))?.id
    if (!id || !createdIds.has(id)) return []
    return picks[index]!.flatMap((slug, position) => {
      const itemId = itemIdOf.get(slug)
      return itemId ? [{ collectionId: id, itemId, position, addedAt: now }] : []
    })
  })
  if (rows.length > 0) await tx.insert(collectionItems).values(rows).onConflictDoNothing()
  return created.length
}

/** A featured shelf of recent published items; an item already featured is left as it is. */
async function seedFeatured(
  tx: DbOrTx,
  now: Date,
  rows: { slug: string; name: string; description: string; iconUrl: string; imageUrl: string | null }[],
) {
  const already = new Set(
    (
      await tx
        .select({ slug: featuredItems.itemSlug })
        .from(featuredItems)
        .where(
          inArray(
            featuredItems.itemSlug,
            rows.map((row) => row.slug),
          ),
        )
    ).map((row) => row.slug),
  )
  const missing = rows.filter((row) => !already.has(row.slug))
  if (missing.length === 0) return 0
  await tx.insert(featuredItems).values(
    missing.map((row, index) => ({
      itemSlug: row.slug,
      itemName: row.name,
      itemDescription: row.description,
      itemIconUrl: row.iconUrl,
      itemImageUrl: row.imageUrl,
      featuredOrder: (FEATURED_COUNT - index) * 10,
      featuredAt: now,
      // Half stay until changed; the others leave the shelf within a few weeks.
      featuredUntil: index % 2 === 0 ? null : new Date(now.getTime() + (14 + index * 3) * DAY_MS),
      createdAt: now,
    })),
  )
  return missing.length
}
