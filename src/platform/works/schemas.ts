import { type Static, Type } from 'typebox'
import { Timestamp } from '../../http/schemas.ts'
import { GENERATE_STATUSES, MEMBER_ROLES } from './tables.ts'

export const WORK_NAME_MAX_LENGTH = 100
export const WORK_DESCRIPTION_MAX_LENGTH = 2000
export const WORK_SLUG_MAX_LENGTH = 63
export const WORK_SLUG_PATTERN = '^[a-z0-9][a-z0-9-]{1,62}$'

const EXAMPLE_WORK_ID = '0b6d1c1e-4a57-4f5e-9d55-2b1f0c7e3a10'
const EXAMPLE_OWNER_ID = '5f0c2a8e-7d3b-4e21-8a4c-9b1e6d2f7c30'
const EXAMPLE_MEMBER_ID = '8d2e4f60-1a3b-4c5d-9e7f-0a1b2c3d4e5f'

const WorkId = Type.String({
  description: 'the work id (a UUID)',
  examples: [EXAMPLE_WORK_ID],
})
const UserId = Type.String({
  description: 'a user id (a UUID)',
  examples: [EXAMPLE_OWNER_ID],
})

const Name = Type.String({
  minLength: 1,
  maxLength: WORK_NAME_MAX_LENGTH,
  description: 'surrounding spaces are trimmed; a blank name is refused',
  examples: ['Café Guide'],
})
const Description = Type.String({
  maxLength: WORK_DESCRIPTION_MAX_LENGTH,
  description: 'surrounding spaces are trimmed; an empty one is stored as null',
  examples: ['The best cafés of Lisbon, hand-picked'],
})

export const WorkParams = Type.Object({ id: WorkId })
export const MemberParams = Type.Object({ id: WorkId, userId: UserId })

export const CreateWorkBody = Type.Object(
  {
    name: Name,
    slug: Type.Optional(
      Type.String({
        pattern: WORK_SLUG_PATTERN,
        description:
          'unique among your works; derived from the name when absent (with `-2`, `-3`, … when taken)',
        examples: ['cafe-guide'],
      }),
    ),
    description: Type.Optional(Description),
  },
  {
    examples: [
      { name: 'Café Guide', slug: 'cafe-guide', description: 'The best cafés of Lisbon, hand-picked' },
    ],
  },
)

export const UpdateWorkBody = Type.Object(
  {
    name: Type.Optional(Name),
    description: Type.Optional(Type.Union([Description, Type.Null()], { description: 'null clears it' })),
  },
  { examples: [{ name: 'Café Guide: Lisbon', description: null }] },
)

const EXAMPLE_WORK = {
  id: EXAMPLE_WORK_ID,
  slug: 'cafe-guide',
  name: 'Café Guide',
  description: 'The best cafés of Lisbon, hand-picked',
  ownerId: EXAMPLE_OWNER_ID,
  role: 'owner',
  generateStatus: { status: 'IDLE', itemsCount: 0, recentLogs: [] },
  createdAt: '2026-11-22T10:00:00.000Z',
  updatedAt: '2026-11-22T10:00:00.000Z',
}

const EXAMPLE_MEMBER = { userId: EXAMPLE_MEMBER_ID, email: 'grace@example.com', role: 'editor' }

const Role = (description: string) =>
  Type.Enum(['owner', ...MEMBER_ROLES], { description, examples: ['owner'] })

export const Work = Type.Object(
  {
    id: WorkId,
    slug: Type.String({ examples: ['cafe-guide'] }),
    name: Type.String({ examples: ['Café Guide'] }),
    description: Type.Union([Type.String(), Type.Null()], { examples: ['The best cafés of Lisbon'] }),
    ownerId: UserId,
    role: Role("the caller's role: owner, editor (may change it) or viewer"),
    generateStatus: Type.Object({
      status: Type.Enum(GENERATE_STATUSES, { examples: ['IDLE'] }),
      itemsCount: Type.Integer({ examples: [0] }),
      recentLogs: Type.Array(Type.String(), { description: 'the last lines of the last generation run' }),
    }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { description: 'A directory site being built', examples: [EXAMPLE_WORK] },
)
export type Work = Static<typeof Work>

export const WorkList = Type.Object(
  { works: Type.Array(Work) },
  {
    description: 'Your works and those shared with you, newest first',
    examples: [{ works: [EXAMPLE_WORK] }],
  },
)

export const Member = Type.Object(
  {
    userId: UserId,
    email: Type.String({ examples: ['grace@example.com'] }),
    role: Role('owner, editor or viewer'),
  },
  { description: 'Someone who shares a work', examples: [EXAMPLE_MEMBER] },
)
export type Member = Static<typeof Member>

export const MemberList = Type.Object(
  { members: Type.Array(Member) },
  {
    description: 'The owner first, then the members in the order they joined',
    examples: [
      {
        members: [{ userId: EXAMPLE_OWNER_ID, email: 'ada@example.com', role: 'owner' }, EXAMPLE_MEMBER],
      },
    ],
  },
)

export const AddMemberBody = Type.Object(
  {
    email: Type.String({
      minLength: 1,
      maxLength: 254,
      description: 'the email of an existing platform account (any case)',
      examples: ['grace@example.com'],
    }),
    role: Type.Enum(MEMBER_ROLES, { examples: ['editor'] }),
  },
  { examples: [{ email: 'grace@example.com', role: 'editor' }] },
)
export type CreateWorkBody = Static<typeof CreateWorkBody>
export type UpdateWorkBody = Static<typeof UpdateWorkBody>
export type AddMemberBody = Static<typeof AddMemberBody>
