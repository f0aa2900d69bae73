import type { App } from '../../http/app.ts'
import { invalidField } from '../../http/schemas.ts'
import { viewerOf } from '../auth/guard.ts'
import { errors } from '../http/schemas.ts'
import {
  MapStatusAnswer,
  NAVIGATION_LIMITS,
  NavigationAnswer,
  NavigationBody,
  SettingsAnswer,
  UpdateSettingsBody,
} from './schemas.ts'
import type { SiteService } from './service.ts'

const WRITE_403 = [403, 'FORBIDDEN', 'CROSS_ORIGIN'] as const

/** The site's settings and menus: admins edit them, the site reads its menus publicly. */
export function siteRoutes(app: App, { site }: { site: SiteService }) {
  app.get(
    '/api/admin/settings',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['settings'],
        summary: 'Read the site’s settings',
        description:
          'Every setting, grouped (`site`, `submissions`, `comments`, `location`), with the defaults filled in ' +
          'for those never saved.',
        response: { 200: SettingsAnswer, ...errors(401, 403) },
      },
    },
    async () => ({ success: true as const, ...(await site.settings()) }),
  )

  app.put(
    '/api/admin/settings',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['settings'],
        summary: 'Change settings',
        description:
          'Changes the settings sent, by group (`{"comments": {"moderation": "post"}}`); the others keep ' +
          'their values. A setting of the wrong type, an unknown one or an empty group is 400 naming it. ' +
          'Answers every setting.',
        body: UpdateSettingsBody,
        response: {
          200: SettingsAnswer,
          ...errors(
            [400, invalidField('body.site.contactEmail', 'must match format "email"')],
            401,
            WRITE_403,
            413,
            415,
          ),
        },
      },
    },
    async (req) => ({
      success: true as const,
      ...(await site.updateSettings(req.body, viewerOf(req).user.id)),
    }),
  )

  app.get(
    '/api/admin/settings/map-status',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['settings'],
        summary: 'What the location features have to work with',
        description:
          'Whether location features and the map are on (the instance’s `LOCATION_ENABLED` and the site’s ' +
          'settings), which geocoding providers have credentials (`GEOCODING_PROVIDER` first), and how many ' +
          'items have coordinates, are remote, or have neither.',
        response: { 200: MapStatusAnswer, ...errors(401, 403) },
      },
    },
    async () => ({ success: true as const, data: await site.mapStatus() }),
  )

  app.get(
    '/api/admin/navigation',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['navigation'],
        summary: 'Read the menus',
        description: 'The header and footer menus, in order; empty until an admin saves them.',
        response: { 200: NavigationAnswer, ...errors(401, 403) },
      },
    },
    async () => ({ success: true as const, ...(await site.navigation()) }),
  )

  app.put(
    '/api/admin/navigation',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['navigation'],
        summary: 'Replace the menus',
        description:
          `Replaces both menus whole. An entry is \`{label, href?, children?}\`: labels of 1 to ` +
          `${NAVIGATION_LIMITS.labelMax} characters, links that are a path of the site (\`/about\`) or an ` +
          `http(s) URL (never \`javascript:\`), at most ${NAVIGATION_LIMITS.perLevel} entries per level and ` +
          `${NAVIGATION_LIMITS.depth} levels; an entry without children needs a link. Order is the array's.`,
        body: NavigationBody,
        response: {
          200: NavigationAnswer,
          ...errors(
            [
              400,
              invalidField(
                'body.header.0.href',
                'must match pattern "^(?:/(?:[^/\\s]\\S*)?|https?://\\S+)$"',
              ),
            ],
            401,
            WRITE_403,
            413,
            415,
          ),
        },
      },
    },
    async (req) => ({
      success: true as const,
      ...(await site.replaceNavigation(req.body, viewerOf(req).user.id)),
    }),
  )

  app.get(
    '/api/navigation',
    {
      config: { access: 'public' },
      schema: {
        tags: ['navigation'],
        summary: 'The site’s menus',
        description:
          'The header and footer menus the site shows, from a cache every save clears on every instance.',
        response: { 200: NavigationAnswer },
      },
    },
    async () => ({ success: true as const, ...(await site.navigation()) }),
  )
}
