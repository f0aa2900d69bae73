import { type Static, Type } from 'typebox'
import { Timestamp } from '../../http/schemas.ts'

export const PROMPT_MAX_LENGTH = 4000

export const GenerateBody = Type.Object(
  {
    prompt: Type.Optional(
      Type.String({
        maxLength: PROMPT_MAX_LENGTH,
        description:
          'what the directory should contain, in your words; the work’s name and description are sent too',
        examples: ['Independent coffee roasters in Lisbon with an online shop'],
      }),
    ),
  },
  { examples: [{ prompt: 'Independent coffee roasters in Lisbon with an online shop' }] },
)
export type GenerateBody = Static<typeof GenerateBody>

export const GenerationAccepted = Type.Object(
  { status: Type.Enum(['GENERATING']) },
  { description: 'The generation is under way', examples: [{ status: 'GENERATING' }] },
)

export const GenerationCancelled = Type.Object(
  { status: Type.Enum(['CANCELLED']) },
  { description: 'The generation was cancelled', examples: [{ status: 'CANCELLED' }] },
)

export const WorkItem = Type.Object({
  id: Type.String({ examples: ['7c0e2d4a-1b3f-4e5d-8a6b-9c0d1e2f3a4b'] }),
  name: Type.String({ examples: ['Fábrica Coffee Roasters'] }),
  description: Type.String({ examples: ['Roasts in small batches in Baixa; ships across Europe.'] }),
  url: Type.Union([Type.String(), Type.Null()], {
    description: 'its website, or null when the provider gave none',
    examples: ['https://fabricacoffeeroasters.com/'],
  }),
  category: Type.String({ examples: ['Roasters'] }),
  tags: Type.Array(Type.String(), { examples: [['coffee', 'online-shop']] }),
  createdAt: Timestamp,
})
export type WorkItem = Static<typeof WorkItem>

export const WorkItemList = Type.Object(
  { items: Type.Array(WorkItem) },
  {
    description: 'The items of the last completed generation, in the provider’s order',
    examples: [
      {
        items: [
          {
            id: '7c0e2d4a-1b3f-4e5d-8a6b-9c0d1e2f3a4b',
            name: 'Fábrica Coffee Roasters',
            description: 'Roasts in small batches in Baixa; ships across Europe.',
            url: 'https://fabricacoffeeroasters.com/',
            category: 'Roasters',
            tags: ['coffee', 'online-shop'],
            createdAt: '2026-11-22T10:00:00.000Z',
          },
        ],
      },
    ],
  },
)
