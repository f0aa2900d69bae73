import { type Static, type TSchema, Type } from 'typebox'
import { HttpUrl, NullableTimestamp } from '../../http/schemas.ts'
import { LocationIndexRun } from '../locations/schemas.ts'

// ---------------------------------------------------------------------------------------------------------
// Settings: a typed set with defaults, grouped as an admin's settings page is.

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()])

const settingsFields = {
  site: {
    name: Type.String({ minLength: 1, maxLength: 100, description: 'shown in titles and emails' }),
    description: Type.String({ maxLength: 500, description: 'a sentence or two about the site' }),
    logoUrl: Nullable(HttpUrl(2048)),
    contactEmail: Nullable(
      Type.String({ format: 'email', maxLength: 254, description: 'where contact messages are sent' }),
    ),
  },
  submissions: {
    enabled: Type.Boolean({ description: 'signed-in users may submit items (POST /api/submit)' }),
  },
  comments: {
    enabled: Type.Boolean({ description: 'signed-in users may comment on published items' }),
    moderation: Type.Enum(['pre', 'post'], {
      description: '`pre`: a comment shows once approved; `post`: at once, and admins may reject it after',
    }),
  },
  location: {
    enabled: Type.Boolean({ description: 'items carry locations and the location features are on' }),
    map: Type.Boolean({ description: 'the site shows items on a map' }),
  },
}

type Groups = typeof settingsFields
const group = <G extends keyof Groups>(name: G, description: string) =>
  Type.Object(settingsFields[name], { additionalProperties: false, description })
const partialGroup = <G extends keyof Groups>(name: G) =>
  Type.Partial(Type.Object(settingsFields[name], { additionalProperties: false }), { minProperties: 1 })

export const SETTINGS_DEFAULTS = {
  site: { name: 'Curio directory', description: '', logoUrl: null, contactEmail: null },
  submissions: { enabled: true },
  comments: { enabled: true, moderation: 'pre' },
  location: { enabled: true, map: true },
} as const satisfies Settings

export const Settings = Type.Object({
  site: group('site', 'what the site is called and how to reach it'),
  submissions: group('submissions', 'items proposed by users'),
  comments: group('comments', 'comments on items and their moderation'),
  location: group('location', 'locations and the map'),
})
export type Settings = Static<typeof Settings>

const EXAMPLE_SETTINGS: Settings = {
  site: {
    name: 'Coffee Atlas',
    description: 'The independent coffee roasters of Europe.',
    logoUrl: 'https://cdn.example.com/coffee-atlas.svg',
    contactEmail: 'hello@coffee-atlas.example',
  },
  submissions: { enabled: true },
  comments: { enabled: true, moderation: 'pre' },
  location: { enabled: true, map: true },
}

export const UpdateSettingsBody = Type.Object(
  {
    site: Type.Optional(partialGroup('site')),
    submissions: Type.Optional(partialGroup('submissions')),
    comments: Type.Optional(partialGroup('comments')),
    location: Type.Optional(partialGroup('location')),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    examples: [
      { site: { name: 'Coffee Atlas', contactEmail: 'hello@coffee-atlas.example' } },
      { comments: { moderation: 'post' } },
    ],
  },
)
export type UpdateSettingsBody = Static<typeof UpdateSettingsBody>

export const SettingsAnswer = Type.Object(
  {
    success: Type.Literal(true),
    data: Settings,
    updatedAt: NullableTimestamp,
  },
  {
    description: 'Every setting, the defaults filled in; `updatedAt` is null until an admin saves any',
    examples: [{ success: true, data: EXAMPLE_SETTINGS, updatedAt: '2026-11-23T09:00:00.000Z' }],
  },
)

export const MapStatusAnswer = Type.Object(
  {
    success: Type.Literal(true),
    data: Type.Object({
      locationEnabled: Type.Boolean(),
      mapEnabled: Type.Boolean(),
      geocoding: Type.Object({
        configured: Type.Boolean({ description: 'a geocoding provider can be called' }),
        providers: Type.Array(Type.String(), { description: 'the providers configured, first tried first' }),
      }),
      items: Type.Object({
        total: Type.Integer(),
        withCoordinates: Type.Integer(),
        remote: Type.Integer({ description: 'remote items, which need no coordinates' }),
        missingLocation: Type.Integer({ description: 'neither coordinates nor remote' }),
      }),
      locationIndex: Type.Union(
        [
          Type.Object({
            entries: Type.Integer({ description: 'rows in the location index' }),
            lastIndexedAt: NullableTimestamp,
            run: Type.Union([LocationIndexRun, Type.Null()], {
              description: 'the latest rebuild, null before the first',
            }),
          }),
          Type.Null(),
        ],
        { description: 'the location index and its latest rebuild with its progress' },
      ),
    }),
  },
  {
    description: 'What the location features have to work with',
    examples: [
      {
        success: true,
        data: {
          locationEnabled: true,
          mapEnabled: true,
          geocoding: { configured: false, providers: [] },
          items: { total: 412, withCoordinates: 301, remote: 77, missingLocation: 34 },
          locationIndex: {
            entries: 378,
            lastIndexedAt: '2026-11-22T10:00:09.000Z',
            run: {
              id: '6a8c0e2b-4d6f-4a8c-9e0b-2d4f6a8c0e2b',
              status: 'completed',
              total: 412,
              processed: 412,
              progressPercent: 100,
              geocoded: 30,
              geocodeFailed: 4,
              skipped: 0,
              error: null,
              requestedBy: '1c3e5a7b-9d0f-4b2d-8e6a-0c2e4a6b8d0f',
              createdAt: '2026-11-22T10:00:00.000Z',
              startedAt: '2026-11-22T10:00:01.000Z',
              finishedAt: '2026-11-22T10:00:09.000Z',
              updatedAt: '2026-11-22T10:00:09.000Z',
            },
          },
        },
      },
    ],
  },
)

// ---------------------------------------------------------------------------------------------------------
// Navigation: the header and footer menus, three levels deep at most.

export const NAVIGATION_LIMITS = { labelMax: 60, perLevel: 20, depth: 3 } as const

const Label = Type.String({ minLength: 1, maxLength: NAVIGATION_LIMITS.labelMax, examples: ['Categories'] })
const Href = Type.String({
  minLength: 1,
  maxLength: 2048,
  // An internal path (`/categories`, not `//host`) or a web URL: never `javascript:` and the like.
  pattern: '^(?:/(?:[^/\\s]\\S*)?|https?://\\S+)$',
  description: 'an internal path (`/about`) or an http(s) URL',
  examples: ['/categories'],
})
const level = <T extends TSchema | undefined>(children: T, description: string) =>
  Type.Object(
    {
      label: Label,
      href: Type.Optional(Href),
      ...(children
        ? { children: Type.Optional(Type.Array(children, { maxItems: NAVIGATION_LIMITS.perLevel })) }
        : {}),
    },
    { additionalProperties: false, description },
  )
const Leaf = Type.Object(
  {
    label: Label,
    href: Href,
    // Named so that a fourth level is refused (400), not silently stripped as unknown fields are.
    children: Type.Optional(
      Type.Array(Type.Unknown(), {
        maxItems: 0,
        description: `menus go ${NAVIGATION_LIMITS.depth} levels deep at most: no entries here`,
      }),
    ),
  },
  { additionalProperties: false, description: 'a link' },
)
const Second = level(Leaf, 'a link, or a group of links')
const First = level(Second, 'a link, or a menu of links and groups')
const Menu = Type.Array(First, { maxItems: NAVIGATION_LIMITS.perLevel })

export const NavigationBody = Type.Object(
  { header: Menu, footer: Menu },
  {
    additionalProperties: false,
    examples: [
      {
        header: [
          {
            label: 'Browse',
            children: [
              { label: 'Categories', href: '/categories' },
              { label: 'Map', href: '/map' },
            ],
          },
          { label: 'Submit', href: '/submit' },
        ],
        footer: [
          { label: 'About', href: '/about' },
          { label: 'GitHub', href: 'https://github.com/curio-dev/curio' },
        ],
      },
    ],
  },
)
export type NavigationBody = Static<typeof NavigationBody>

/** A menu entry as read: `external` says whether it leaves the site. */
export interface NavigationEntry {
  label: string
  href: string | null
  external: boolean
  children: NavigationEntry[]
}

const EntryOut = (depth: number): TSchema =>
  Type.Object({
    label: Type.String(),
    href: Type.Union([Type.String(), Type.Null()]),
    external: Type.Boolean({ description: 'an http(s) URL, not a path of the site' }),
    children: depth > 1 ? Type.Array(EntryOut(depth - 1)) : Type.Array(Type.Never(), { maxItems: 0 }),
  })

export const NavigationAnswer = Type.Object(
  {
    success: Type.Literal(true),
    data: Type.Object({
      header: Type.Array(EntryOut(NAVIGATION_LIMITS.depth)),
      footer: Type.Array(EntryOut(NAVIGATION_LIMITS.depth)),
    }),
    updatedAt: NullableTimestamp,
  },
  {
    description: 'The header and footer menus, in order',
    examples: [
      {
        success: true,
        data: {
          header: [{ label: 'Submit', href: '/submit', external: false, children: [] }],
          footer: [
            { label: 'GitHub', href: 'https://github.com/curio-dev/curio', external: true, children: [] },
          ],
        },
        updatedAt: '2026-11-23T09:00:00.000Z',
      },
    ],
  },
)
