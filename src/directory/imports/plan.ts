/**
 * What an import does with each row, worked out without writing: the one planner a real run and a dry run
 * share, so a dry run reports exactly what a real run would do. It works over `Known`, what the directory
 * holds as far as the rows need it, and changes `Known` as it plans (an item created by one row is there for
 * the next), which is how a dry run sees its own earlier rows without having written them.
 */
import { slugify } from '../../lib/slug.ts'
import { changesBetween as fieldChanges, LOCATION_FIELDS, snapshotOf } from '../items/history.ts'
import type { ImportedFields } from '../items/imported.ts'
import { ITEM_LIMITS } from '../items/schemas.ts'
import type { FieldChange } from '../items/tables.ts'
import { ITEM_STATUSES } from '../items/tables.ts'
import type { TransferItem } from '../transfer/records.ts'
import type { ImportIssue, ImportMode } from './tables.ts'

/** An item as the planner compares it (the fields an import sets). `id` is null for one a dry run created. */
export interface ItemState extends ImportedFields {
  id: string | null
}

export interface Named {
  id: string
  name: string
  /** The address part: the id itself for categories and tags, a company's slug. */
  slug: string
}

/** What the directory holds, as far as the rows planned so far need it. */
export interface Known {
  items: Map<string, ItemState>
  /** An item's slug by its URL. */
  byUrl: Map<string, string>
  categories: NamedSet
  tags: NamedSet
  companies: NamedSet
}

/**
 * Categories, tags or companies by slug and by lower-cased name; `created` lists those the plan adds, each
 * with a free slug made from its name and the id `idOf` gives it.
 */
export class NamedSet {
  readonly bySlug = new Map<string, Named>()
  readonly byName = new Map<string, Named>()
  readonly created: Named[] = []

  private readonly maxSlugLength: number
  private readonly idOf: (slug: string) => string

  constructor(
    rows: readonly Named[],
    maxSlugLength: number,
    idOf: (slug: string) => string = (slug) => slug,
  ) {
    this.maxSlugLength = maxSlugLength
    this.idOf = idOf
    for (const row of rows) this.add(row)
  }

  add(row: Named) {
    this.bySlug.set(row.slug, row)
    this.byName.set(row.name.toLowerCase(), row)
  }

  /** The one named (or whose slug is) `value`, if any. */
  find(value: string): Named | undefined {
    return this.byName.get(value.toLowerCase()) ?? this.bySlug.get(value)
  }

  /** The one named `name`, made when missing; undefined when its name makes no slug. */
  ensure(name: string): Named | undefined {
    const found = this.find(name)
    if (found) return found
    const base = slugify(name, this.maxSlugLength - 4)
    if (!base) return undefined
    let slug = base
    for (let n = 2; this.bySlug.has(slug); n++) slug = `${base}-${n}`
    const row = { id: this.idOf(slug), name, slug }
    this.add(row)
    this.created.push(row)
    return row
  }

  /** Forgets the ones made after the first `mark` (a row that made them was skipped). */
  forgetAfter(mark: number) {
    for (const made of this.created.splice(mark)) {
      this.bySlug.delete(made.slug)
      this.byName.delete(made.name.toLowerCase())
    }
  }
}

export type Planned =
  | { kind: 'create'; item: ItemState; changes: FieldChange[] }
  | { kind: 'update'; before: ItemState; item: ItemState; changes: FieldChange[] }
  | { kind: 'unchanged' }
  | { kind: 'skip'; issue?: ImportIssue }

const NAME_LIMITS = { category: [2, 100], tag: [1, 100], company: [2, 200] } as const

const TEXT_LIMITS = {
  address: ITEM_LIMITS.addressMax,
  city: ITEM_LIMITS.cityMax,
  country: ITEM_LIMITS.countryMax,
  serviceArea: ITEM_LIMITS.serviceAreaMax,
} as const

/** What the item's history records of the row: as item update compares, and as item create names. */
function changesBetween(before: ItemState | null, after: ItemState): FieldChange[] {
  const changes = fieldChanges(
    before ? snapshotOf(before, before.tagIds) : {},
    snapshotOf(after, after.tagIds),
  )
  if (before) return changes
  // A new item's history names what it was given, as item create does.
  return changes.filter(({ to }) => to !== null && to !== false && !(Array.isArray(to) && to.length === 0))
}

const sameDate = (a: Date | null, b: Date | null) => (a?.getTime() ?? null) === (b?.getTime() ?? null)

const isHttpUrl = (value: string) => {
  const url = URL.parse(value)
  return (
    url !== null &&
    (url.protocol === 'http:' || url.protocol === 'https:') &&
    value.length <= ITEM_LIMITS.urlMax
  )
}

export interface PlanContext {
  mode: ImportMode
  /** When a new published item without a date of its own was published: the run's start less its row. */
  publishedAt: (position: number) => Date
}

/**
 * What importing `row` (at `position`, from `line`) does: `Known` follows (the item as it will be, the
 * categories, tags and companies it needs), so the next row sees it.
 */
export function planRow(
  known: Known,
  row: TransferItem,
  position: number,
  line: number | null,
  context: PlanContext,
): Planned {
  const problems: string[] = []
  const name = typeof row.name === 'string' ? row.name.trim() : ''
  const label = name || `row ${position + 1}`
  const skip = (message: string): Planned => ({
    kind: 'skip',
    issue: { ...(line === null ? {} : { line }), item: label, message },
  })
  if (name.length < ITEM_LIMITS.nameMin || name.length > ITEM_LIMITS.nameMax) {
    return skip(`the name must be ${ITEM_LIMITS.nameMin} to ${ITEM_LIMITS.nameMax} characters`)
  }
  const slug = row.slug ?? slugify(name, ITEM_LIMITS.slugMax)
  if (!slug) return skip('no slug can be made from the name: give a slug')
  if (slug.length > ITEM_LIMITS.slugMax || !/^[a-z0-9]+(?:-[a-z0-9]+)*$/.test(slug)) {
    return skip(`the slug "${slug}" is not lower-case letters, digits and single dashes`)
  }
  for (const field of ['url', 'iconUrl', 'imageUrl'] as const) {
    const value = row[field]
    if (typeof value === 'string' && !isHttpUrl(value))
      problems.push(`${field} is not an http(s) URL: "${value.slice(0, 100)}"`)
  }
  if (typeof row.description === 'string' && row.description.length > ITEM_LIMITS.descriptionMax) {
    problems.push(`the description is longer than ${ITEM_LIMITS.descriptionMax} characters`)
  }
  if (row.status !== undefined && !ITEM_STATUSES.includes(row.status))
    problems.push(`unknown status "${row.status}"`)
  if (row.tags && row.tags.length > ITEM_LIMITS.tagsMax)
    problems.push(`more than ${ITEM_LIMITS.tagsMax} tags`)
  for (const [field, max] of Object.entries(TEXT_LIMITS)) {
    const value = row.location?.[field as keyof typeof TEXT_LIMITS]
    if (typeof value === 'string' && value.length > max)
      problems.push(`location.${field} is longer than ${max} characters`)
  }
  const checkName = (kind: keyof typeof NAME_LIMITS, value: string) => {
    const [min, max] = NAME_LIMITS[kind]
    const trimmed = value.trim()
    if (trimmed.length < min || trimmed.length > max) {
      problems.push(`the ${kind} name "${trimmed.slice(0, 100)}" must be ${min} to ${max} characters`)
    }
    return trimmed
  }
  const categoryName = row.category ? checkName('category', row.category) : row.category
  const tagNames = row.tags ? [...new Set(row.tags.map((tag) => checkName('tag', tag)))] : undefined
  const companyName = row.company ? checkName('company', row.company) : row.company
  let publishedAt: Date | null | undefined
  if (row.publishedAt !== undefined) {
    publishedAt = row.publishedAt === null ? null : new Date(row.publishedAt)
    if (publishedAt && Number.isNaN(publishedAt.getTime()))
      problems.push(`publishedAt is not a date: "${row.publishedAt}"`)
  }
  if (problems.length > 0) return skip(problems.join('; '))

  // Identity: the slug, or else the URL.
  let before = known.items.get(slug)
  if (!before && row.url) {
    const other = known.byUrl.get(row.url)
    if (other) before = known.items.get(other)
  }
  if (before && context.mode === 'create-only') return { kind: 'skip' }

  const base: ItemState = before ?? {
    id: null,
    slug,
    name,
    description: null,
    url: null,
    iconUrl: null,
    imageUrl: null,
    categoryId: null,
    companyId: null,
    status: 'published',
    address: null,
    city: null,
    country: null,
    latitude: null,
    longitude: null,
    isRemote: false,
    serviceArea: null,
    publishedAt: null,
    tagIds: [],
  }
  const after: ItemState = { ...base, name }
  if (row.slug !== undefined) after.slug = row.slug
  if (row.description !== undefined) after.description = row.description
  if (row.url !== undefined) after.url = row.url
  if (row.iconUrl !== undefined) after.iconUrl = row.iconUrl
  if (row.imageUrl !== undefined) after.imageUrl = row.imageUrl
  if (row.status !== undefined) after.status = row.status
  for (const field of LOCATION_FIELDS) {
    const value = row.location?.[field]
    if (value !== undefined) (after as unknown as Record<string, unknown>)[field] = value
  }
  if ((after.latitude === null) !== (after.longitude === null)) {
    return skip('latitude and longitude go together: give both, or neither')
  }
  if (after.latitude !== null && (Math.abs(after.latitude) > 90 || Math.abs(after.longitude ?? 0) > 180)) {
    return skip('the coordinates are out of range')
  }
  // A slug given for an item found by its URL moves it there, unless another item has that slug.
  if (before && after.slug !== before.slug && known.items.has(after.slug)) {
    return skip(`another item has the slug "${after.slug}"`)
  }

  // Categories, tags and companies: found by name (or id), else made. Nothing is made for a skipped row.
  const marks = [known.categories.created.length, known.tags.created.length, known.companies.created.length]
  const undo = () => {
    known.categories.forgetAfter(marks[0] ?? 0)
    known.tags.forgetAfter(marks[1] ?? 0)
    known.companies.forgetAfter(marks[2] ?? 0)
  }
  if (categoryName !== undefined) {
    if (categoryName === null) after.categoryId = null
    else {
      const category = known.categories.ensure(categoryName)
      if (!category) return skip(`no id can be made from the category name "${categoryName}"`)
      after.categoryId = category.id
    }
  }
  if (tagNames !== undefined) {
    const ids: string[] = []
    for (const tagName of tagNames) {
      const tag = known.tags.ensure(tagName)
      if (!tag) {
        undo()
        return skip(`no id can be made from the tag name "${tagName}"`)
      }
      ids.push(tag.id)
    }
    after.tagIds = [...new Set(ids)].sort()
  }
  if (companyName !== undefined) {
    if (companyName === null) after.companyId = null
    else {
      const company = known.companies.ensure(companyName)
      if (!company) {
        undo()
        return skip(`no slug can be made from the company name "${companyName}"`)
      }
      after.companyId = company.id
    }
  }
  if (publishedAt !== undefined) after.publishedAt = publishedAt
  else if (after.status === 'published' && base.status !== 'published')
    after.publishedAt = context.publishedAt(position)
  else if (!before && after.status === 'published') after.publishedAt = context.publishedAt(position)

  const changes = changesBetween(before ?? null, after)
  const moved = before ? !sameDate(before.publishedAt, after.publishedAt) : false
  if (before && changes.length === 0 && !moved) return { kind: 'unchanged' }

  // Known follows the row.
  if (before) {
    known.items.delete(before.slug)
    if (before.url && known.byUrl.get(before.url) === before.slug) known.byUrl.delete(before.url)
  }
  known.items.set(after.slug, after)
  if (after.url) known.byUrl.set(after.url, after.slug)
  return before ? { kind: 'update', before, item: after, changes } : { kind: 'create', item: after, changes }
}
