/**
 * The console's screens: the navigation's links, in order, and every path a screen answers. Each screen
 * is its own chunk, loaded when first opened, so the first page loads only what it shows.
 */
import type { Route } from '../shared/screens.tsx'

/** The navigation, as the console shows it: name and path. */
export const NAV = [
  { name: 'Dashboard', path: '/' },
  { name: 'Items', path: '/items' },
  { name: 'Categories', path: '/categories' },
  { name: 'Tags', path: '/tags' },
  { name: 'Collections', path: '/collections' },
  { name: 'Companies', path: '/companies' },
  { name: 'Featured', path: '/featured' },
  { name: 'Sponsor ads', path: '/sponsor-ads' },
  { name: 'Reports', path: '/reports' },
  { name: 'Comments', path: '/comments' },
  { name: 'Messages', path: '/messages' },
  { name: 'Clients', path: '/clients' },
  { name: 'Users', path: '/users' },
  { name: 'Roles', path: '/roles' },
  { name: 'Settings', path: '/settings' },
  { name: 'Import / export', path: '/import-export' },
] as const

export const ROUTES: readonly Route[] = [
  { pattern: '/', nav: 'Dashboard', load: () => import('./screens/dashboard.tsx') },
  { pattern: '/items', nav: 'Items', load: () => import('./screens/items.tsx') },
  { pattern: '/items/new', nav: 'Items', load: () => import('./screens/item-edit.tsx') },
  { pattern: '/items/:id', nav: 'Items', load: () => import('./screens/item-edit.tsx') },
  { pattern: '/categories', nav: 'Categories', load: () => import('./screens/categories.tsx') },
  { pattern: '/tags', nav: 'Tags', load: () => import('./screens/tags.tsx') },
  { pattern: '/collections', nav: 'Collections', load: () => import('./screens/collections.tsx') },
  { pattern: '/collections/:id', nav: 'Collections', load: () => import('./screens/collection.tsx') },
  { pattern: '/companies', nav: 'Companies', load: () => import('./screens/companies.tsx') },
  { pattern: '/featured', nav: 'Featured', load: () => import('./screens/featured.tsx') },
  { pattern: '/sponsor-ads', nav: 'Sponsor ads', load: () => import('./screens/sponsor-ads.tsx') },
  { pattern: '/sponsor-ads/:id', nav: 'Sponsor ads', load: () => import('./screens/sponsor-ad.tsx') },
  { pattern: '/reports', nav: 'Reports', load: () => import('./screens/reports.tsx') },
  { pattern: '/comments', nav: 'Comments', load: () => import('./screens/comments.tsx') },
  { pattern: '/messages', nav: 'Messages', load: () => import('./screens/messages.tsx') },
  { pattern: '/clients', nav: 'Clients', load: () => import('./screens/clients.tsx') },
  { pattern: '/clients/:id', nav: 'Clients', load: () => import('./screens/client.tsx') },
  { pattern: '/users', nav: 'Users', load: () => import('./screens/users.tsx') },
  { pattern: '/roles', nav: 'Roles', load: () => import('./screens/roles.tsx') },
  { pattern: '/settings', nav: 'Settings', load: () => import('./screens/settings.tsx') },
  { pattern: '/notifications', nav: 'Dashboard', load: () => import('./screens/notifications.tsx') },
  { pattern: '/import-export', nav: 'Import / export', load: () => import('./screens/import-export.tsx') },
]
