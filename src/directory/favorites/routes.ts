import type { App } from '../../http/app.ts'
import { invalidField } from '../../http/schemas.ts'
import { viewerOf } from '../auth/guard.ts'
import { errors } from '../http/schemas.ts'
import {
  CreateFavoriteBody,
  FavoriteCreated,
  FavoriteList,
  FavoriteParams,
  FavoriteRemoved,
} from './schemas.ts'
import type { FavoriteService } from './service.ts'

const tags = ['favorites']

export function favoriteRoutes(app: App, { favorites }: { favorites: FavoriteService }) {
  app.get(
    '/api/favorites',
    {
      config: { access: 'session' },
      schema: {
        tags,
        summary: 'List your favorites',
        description: 'Your favorite items, oldest first.',
        response: { 200: FavoriteList, ...errors(401) },
      },
    },
    async (req) => ({ success: true as const, favorites: await favorites.list(viewerOf(req).user.id) }),
  )

  app.post(
    '/api/favorites',
    {
      config: { access: 'session' },
      schema: {
        tags,
        summary: 'Add a favorite',
        description:
          'Saves the item with the name, icon and category it is shown with, so the favorite shows even ' +
          'without the item. One per item: an item already in your favorites is 409 `FAVORITE_EXISTS`, ' +
          'also when two adds race.',
        body: CreateFavoriteBody,
        response: {
          201: FavoriteCreated,
          ...errors(
            [400, invalidField('body.itemSlug', 'must be at least 1 character long')],
            401,
            [403, 'CROSS_ORIGIN'],
            [409, 'FAVORITE_EXISTS'],
            413,
            415,
          ),
        },
      },
    },
    async (req, reply) =>
      reply
        .code(201)
        .send({ success: true as const, favorite: await favorites.add(viewerOf(req).user.id, req.body) }),
  )

  app.delete(
    '/api/favorites/:itemSlug',
    {
      config: { access: 'session' },
      schema: {
        tags,
        summary: 'Remove a favorite',
        description: 'Removes the item from your favorites; 404 when it is not among them.',
        params: FavoriteParams,
        response: {
          200: FavoriteRemoved,
          ...errors(401, [403, 'CROSS_ORIGIN'], [404, 'FAVORITE_NOT_FOUND']),
        },
      },
    },
    async (req) => {
      await favorites.remove(viewerOf(req).user.id, req.params.itemSlug)
      return { success: true as const, message: 'Removed from favorites' }
    },
  )
}
