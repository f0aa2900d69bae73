import { Type } from 'typebox'
import { HttpUrl, Timestamp } from '../../http/schemas.ts'

const EXAMPLE = {
  id: '5b1d9c2e-7a40-4f1b-9e3d-2c6a8f0b4d11',
  userId: '0f3e6b2a-9c1d-4e5f-8a7b-6c5d4e3f2a10',
  itemSlug: 'blue-bottle-coffee',
  itemName: 'Blue Bottle Coffee',
  itemIconUrl: 'https://cdn.example.com/icons/blue-bottle.png',
  itemCategory: 'coffee-roasters',
  createdAt: '2026-03-02T10:15:30.123Z',
  updatedAt: '2026-03-02T10:15:30.123Z',
}

export const Favorite = Type.Object({
  id: Type.String({ examples: [EXAMPLE.id] }),
  userId: Type.String({ examples: [EXAMPLE.userId] }),
  itemSlug: Type.String({ examples: [EXAMPLE.itemSlug] }),
  itemName: Type.String({ examples: [EXAMPLE.itemName] }),
  itemIconUrl: Type.Union([Type.String(), Type.Null()], { examples: [EXAMPLE.itemIconUrl] }),
  itemCategory: Type.Union([Type.String(), Type.Null()], { examples: [EXAMPLE.itemCategory] }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
})

export const FavoriteList = Type.Object(
  { success: Type.Literal(true), favorites: Type.Array(Favorite) },
  { description: 'Your favorites, oldest first', examples: [{ success: true, favorites: [EXAMPLE] }] },
)

export const CreateFavoriteBody = Type.Object(
  {
    itemSlug: Type.String({ minLength: 1, maxLength: 200, examples: [EXAMPLE.itemSlug] }),
    itemName: Type.String({ minLength: 1, maxLength: 200, examples: [EXAMPLE.itemName] }),
    itemIconUrl: Type.Optional(
      HttpUrl(2048, 'the item’s icon, shown with it (http or https)', EXAMPLE.itemIconUrl),
    ),
    itemCategory: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: 'the item’s category',
        examples: [EXAMPLE.itemCategory],
      }),
    ),
  },
  {
    examples: [
      {
        itemSlug: EXAMPLE.itemSlug,
        itemName: EXAMPLE.itemName,
        itemIconUrl: EXAMPLE.itemIconUrl,
        itemCategory: EXAMPLE.itemCategory,
      },
    ],
  },
)

export const FavoriteCreated = Type.Object(
  { success: Type.Literal(true), favorite: Favorite },
  { description: 'The favorite, saved', examples: [{ success: true, favorite: EXAMPLE }] },
)

export const FavoriteParams = Type.Object({
  itemSlug: Type.String({
    minLength: 1,
    maxLength: 200,
    description: 'the favorited item’s slug',
    examples: [EXAMPLE.itemSlug],
  }),
})

export const FavoriteRemoved = Type.Object(
  { success: Type.Literal(true), message: Type.String({ examples: ['Removed from favorites'] }) },
  { description: 'The favorite is gone', examples: [{ success: true, message: 'Removed from favorites' }] },
)
