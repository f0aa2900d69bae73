import { type Static, Type } from 'typebox'
import { Query, Timestamp } from '../../http/schemas.ts'
import { PageMetaFields, PageQueryFields } from '../../lib/pagination.ts'

/** SPEC.md "Directory: category" and Limits. */
export const CATEGORY_NAME_MIN_LENGTH = 2
export const CATEGORY_NAME_MAX_LENGTH = 100
export const CATEGORY_ID_MAX_LENGTH = 100
export const CATEGORY_ID_PATTERN = '^[a-z0-9-]+$'
/** A cap on one reorder call, far above any real directory's category count. */
export const REORDER_MAX_IDS = 1000

const EXAMPLE = {
  id: 'ai-tools',
  name: 'AI Tools',
  isActive: true,
  itemCount: 12,
  createdAt: '2026-01-15T09:30:00.000Z',
  updatedAt: '2026-01-15T09:30:00.000Z',
}

const CategoryName = Type.String({
  minLength: CATEGORY_NAME_MIN_LENGTH,
  maxLength: CATEGORY_NAME_MAX_LENGTH,
  pattern: '\\S',
  description: `${CATEGORY_NAME_MIN_LENGTH} to ${CATEGORY_NAME_MAX_LENGTH} characters once trimmed; unique whatever the case`,
  examples: [EXAMPLE.name],
})

const TrueOrFalse = (description: string) =>
  Type.Enum(['true', 'false'], { default: 'false', description, examples: ['false'] })

export const Category = Type.Object(
  {
    id: Type.String({ pattern: CATEGORY_ID_PATTERN, examples: [EXAMPLE.id] }),
    name: Type.String({ examples: [EXAMPLE.name] }),
    isActive: Type.Boolean(),
    itemCount: Type.Integer({ minimum: 0 }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { description: 'A category', examples: [EXAMPLE] },
)
export type Category = Static<typeof Category>

export const CategoryIdParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: CATEGORY_ID_MAX_LENGTH, examples: [EXAMPLE.id] }),
})

export const CategoryListQuery = Query({
  ...PageQueryFields,
  includeInactive: TrueOrFalse('`true` lists deactivated categories too'),
  sortBy: Type.Enum(['order', 'name', 'id'], {
    default: 'order',
    description: '`order` is the order reorder sets (then name)',
  }),
  sortOrder: Type.Enum(['asc', 'desc'], { default: 'asc' }),
})
export type CategoryListQuery = Static<typeof CategoryListQuery>

export const CreateCategoryBody = Type.Object(
  {
    id: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: CATEGORY_ID_MAX_LENGTH,
        pattern: CATEGORY_ID_PATTERN,
        description: 'a slug; generated from the name when omitted',
        examples: [EXAMPLE.id],
      }),
    ),
    name: CategoryName,
  },
  { examples: [{ name: EXAMPLE.name }, { id: EXAMPLE.id, name: EXAMPLE.name }] },
)
export type CreateCategoryBody = Static<typeof CreateCategoryBody>

export const UpdateCategoryBody = Type.Object(
  { name: CategoryName },
  { examples: [{ name: 'AI Assistants' }] },
)

export const DeleteCategoryQuery = Query({
  hard: TrueOrFalse('`true` deletes permanently; otherwise the category is deactivated'),
})

export const ReorderCategoriesBody = Type.Object(
  {
    categoryIds: Type.Array(Type.String({ minLength: 1, maxLength: CATEGORY_ID_MAX_LENGTH }), {
      minItems: 1,
      maxItems: REORDER_MAX_IDS,
      uniqueItems: true,
      description: 'existing category ids; array position becomes the order, unlisted categories follow',
      examples: [['ai-tools', 'search', 'analytics']],
    }),
  },
  { examples: [{ categoryIds: ['ai-tools', 'search', 'analytics'] }] },
)

export const AllCategoriesQuery = Query({
  locale: Type.String({
    minLength: 2,
    maxLength: 35,
    pattern: '^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$',
    default: 'en',
    description: 'a language tag such as `en` or `pt-BR`',
    examples: ['en'],
  }),
})

export const CategoryListAnswer = Type.Object(
  {
    success: Type.Literal(true),
    categories: Type.Array(Category),
    ...PageMetaFields,
  },
  {
    description: 'A page of categories',
    examples: [{ success: true, categories: [EXAMPLE], page: 1, limit: 10, total: 1, totalPages: 1 }],
  },
)

export const CategoryCreatedAnswer = Type.Object(
  {
    success: Type.Literal(true),
    category: Category,
    message: Type.String({ examples: ['Category created'] }),
  },
  {
    description: 'The created category',
    examples: [{ success: true, category: { ...EXAMPLE, itemCount: 0 }, message: 'Category created' }],
  },
)

export const CategoryAnswer = Type.Object(
  { success: Type.Literal(true), data: Category },
  { description: 'The category', examples: [{ success: true, data: EXAMPLE }] },
)

export const CategoryUpdatedAnswer = Type.Object(
  {
    success: Type.Literal(true),
    data: Category,
    message: Type.String({ examples: ['Category updated'] }),
  },
  {
    description: 'The renamed category',
    examples: [{ success: true, data: { ...EXAMPLE, name: 'AI Assistants' }, message: 'Category updated' }],
  },
)

export const AllCategoriesAnswer = Type.Object(
  { success: Type.Literal(true), data: Type.Array(Category) },
  { description: 'Every active category, in order', examples: [{ success: true, data: [EXAMPLE] }] },
)

export const CategoryMessageAnswer = Type.Object(
  {
    success: Type.Literal(true),
    message: Type.String({ examples: ['Category deactivated'] }),
  },
  { description: 'Done', examples: [{ success: true, message: 'Category deactivated' }] },
)
