/**
 * The console's screens: the navigation's links, in order, and every path a screen answers. Each screen
 * is its own chunk, loaded when first opened. The paths the API's notifications link to (`/works/:id`,
 * `/settings/plugins/:id`, `/settings`) are screens here too.
 */
import type { Route } from '../shared/screens.tsx'

/** The navigation, as the console shows it: name and path. */
export const NAV = [
  { name: 'Works', path: '/works' },
  { name: 'API keys', path: '/api-keys' },
  { name: 'Webhooks', path: '/webhooks' },
  { name: 'Plugins', path: '/plugins' },
  { name: 'Notifications', path: '/notifications' },
  { name: 'Activity', path: '/activity' },
  { name: 'Account', path: '/account' },
] as const

const works = () => import('./screens/works.tsx')
const work = () => import('./screens/work.tsx')
const plugins = () => import('./screens/plugins.tsx')
const plugin = () => import('./screens/plugin.tsx')
const account = () => import('./screens/account.tsx')

export const ROUTES: readonly Route[] = [
  { pattern: '/', nav: 'Works', load: works },
  { pattern: '/works', nav: 'Works', load: works },
  { pattern: '/works/deploy', nav: 'Works', load: () => import('./screens/batch-deploy.tsx') },
  { pattern: '/works/:id', nav: 'Works', load: work },
  { pattern: '/works/:id/:tab', nav: 'Works', load: work },
  { pattern: '/api-keys', nav: 'API keys', load: () => import('./screens/api-keys.tsx') },
  { pattern: '/webhooks', nav: 'Webhooks', load: () => import('./screens/webhooks.tsx') },
  { pattern: '/webhooks/:id', nav: 'Webhooks', load: () => import('./screens/webhook.tsx') },
  { pattern: '/plugins', nav: 'Plugins', load: plugins },
  { pattern: '/plugins/:id', nav: 'Plugins', load: plugin },
  { pattern: '/settings/plugins/:id', nav: 'Plugins', load: plugin },
  { pattern: '/notifications', nav: 'Notifications', load: () => import('./screens/notifications.tsx') },
  { pattern: '/activity', nav: 'Activity', load: () => import('./screens/activity.tsx') },
  { pattern: '/account', nav: 'Account', load: account },
  { pattern: '/settings', nav: 'Account', load: account },
]
