import cookie from '@fastify/cookie'
import { createNotifications } from '../db/notifications.ts'
import { type App, createBaseApp } from '../http/app.ts'
import { baseOptionsOf, installModules, type ServiceDeps } from '../http/modules.ts'
import { createRateLimit } from '../http/rate-limit.ts'
import { createPaymentGateways } from '../integrations/payments/gateway.ts'
import { PAYMENT_PROVIDERS, providerNames } from '../integrations/payments/registry.ts'
import { createAccountService } from './accounts/service.ts'
import { createDirectoryGuards } from './auth/guard.ts'
import { directoryAuthModule } from './auth/module.ts'
import { appOrigins, createOriginCheck } from './auth/origin.ts'
import { createSessionService } from './auth/sessions.ts'
import { categoriesModule } from './categories/module.ts'
import { clientsModule } from './clients/module.ts'
import { itemCollections } from './collections/memberships.ts'
import { collectionsModule } from './collections/module.ts'
import { commentsModule } from './comments/module.ts'
import { companiesModule } from './companies/module.ts'
import { adminConsoleModule } from './console.ts'
import { contactModule } from './contact/module.ts'
import { crmModule } from './crm/module.ts'
import { dashboardCache, dashboardModule } from './dashboard/module.ts'
import { exportsModule } from './exports/module.ts'
import { favoritesModule } from './favorites/module.ts'
import { featuredModule } from './featured/module.ts'
import { feedsCache, feedsModule } from './feeds/module.ts'
import { geocodingModule } from './geocoding/module.ts'
import { DirectoryError, errors } from './http/schemas.ts'
import { importsModule } from './imports/module.ts'
import { createDirectoryEnvelope } from './instance/envelope.ts'
import { itemsModule } from './items/module.ts'
import { categoryUsage, companyUsage, itemDisplay, tagUsage } from './items/usage.ts'
import { itemLinkChecks } from './links/item-links.ts'
import { linksModule } from './links/module.ts'
import { locationsModule } from './locations/module.ts'
import { mcpModule } from './mcp/module.ts'
import { notificationsModule } from './notifications/module.ts'
import { paymentsModule } from './payments/module.ts'
import { reportsModule } from './reports/module.ts'
import { rolesModule } from './roles/module.ts'
import { siteModule } from './site/module.ts'
import { sponsorAdsModule } from './sponsor-ads/module.ts'
import { tagsModule } from './tags/module.ts'
import { usersModule } from './users/module.ts'

export type DirectoryDeps = ServiceDeps

export interface DirectoryApp {
  app: App
}

/** Builds the directory API from its modules; the caller starts the jobs and listens. */
export async function buildDirectoryApp(deps: DirectoryDeps): Promise<DirectoryApp> {
  const { config, database, clock, jobs, log } = deps
  const db = database.db

  const sessions = createSessionService({ db, clock, ttlDays: config.sessionTtlDays })
  const guards = createDirectoryGuards(sessions)

  const app = await createBaseApp({
    service: 'directory',
    title: 'Curio directory API',
    clients: {
      typedClient: '@curio/client',
      mcp: '/mcp',
      rss: '/feed.xml',
      atom: '/feed.atom',
      jsonFeed: '/feed.json',
      llms: '/llms.txt',
      items: '/api/items.json',
    },
    description:
      'The back end of one published directory site: accounts, admin management, sponsor ads, reports, ' +
      'geocoding and more. Sign in with /api/auth/signin; the session cookie authenticates what follows. ' +
      'Writes that carry the cookie must come from the app’s own origin (`Origin` or `Referer`).',
    ...baseOptionsOf(deps),
    outageResponse: errors([503, 'DATABASE_UNAVAILABLE'])[503],
    renderError: (error) => ({
      success: false,
      error: error.message,
      code: error.code,
      ...(error.details === undefined ? {} : { details: error.details }),
    }),
    access: {
      session: {
        guard: guards.requireSession,
        security: [{ sessionCookie: [] }],
        says: 'Access: a signed-in user (401 without a session).',
      },
      admin: {
        guard: guards.requireAdmin,
        security: [{ sessionCookie: [] }],
        says: 'Access: an admin session (401 without a session, 403 for a non-admin).',
      },
      'admin-401': {
        guard: guards.requireAdminOr401,
        security: [{ sessionCookie: [] }],
        says: 'Access: an admin session (401 without one, and for a non-admin).',
      },
    },
    securitySchemes: {
      sessionCookie: {
        type: 'apiKey',
        in: 'cookie',
        name: 'curio_session',
        description: 'set by /api/auth/signin',
      },
    },
    tags: [
      { name: 'auth', description: 'Accounts, sessions and the current user' },
      { name: 'categories', description: 'Admin categories and their order' },
      { name: 'clients', description: 'Admin management of client profiles' },
      { name: 'collections', description: 'Hand-picked lists of items, and whether the site has any' },
      { name: 'comments', description: 'Comments on items, the site’s approved ones, and their moderation' },
      { name: 'contact', description: 'The site’s contact form, and the messages it brought for the admins' },
      { name: 'crm', description: 'The CRM integration (Twenty): its settings and the sync of clients' },
      { name: 'companies', description: 'The companies behind items, and how many items name each' },
      { name: 'dashboard', description: 'The figures an admin opens the console for' },
      { name: 'favorites', description: 'A signed-in user’s favorite items' },
      {
        name: 'imports',
        description:
          'Imports of whole directories from awesome-list Markdown, CSV or JSON, run as durable jobs',
      },
      {
        name: 'geocoding',
        description: 'Forward and reverse geocoding through Mapbox and Google, cached per instance',
      },
      {
        name: 'items',
        description: 'Items: the admin’s management, the public site’s reads, and submissions',
      },
      {
        name: 'locations',
        description: 'The location index, the public map’s reads, its rebuild, and the geographic analytics',
      },
      { name: 'featured-items', description: 'The featured shelf and its admin entries' },
      {
        name: 'notifications',
        description: 'What the admins should look at: submissions, comments, messages',
      },
      { name: 'navigation', description: 'The site’s header and footer menus' },
      {
        name: 'sponsor-ads',
        description:
          'Paid placements of items: submission, checkout, review, expiry, renewal and cancellation',
      },
      {
        name: 'payments',
        description: 'What the payment providers reported: payments, subscriptions, events',
      },
      {
        name: 'payment-webhooks',
        description: `Inbound events of ${providerNames(PAYMENT_PROVIDERS, 'and')}, verified and applied once`,
      },
      {
        name: 'reports',
        description:
          'Users’ reports of items and comments, their review, and the moderation actions they run',
      },
      { name: 'roles', description: 'Admin roles and their permissions' },
      { name: 'settings', description: 'The site’s typed settings' },
      { name: 'tags', description: 'Item tags, and how many items carry each' },
      {
        name: 'mcp',
        description: 'The Model Context Protocol endpoint: the public reads as tools for AI assistants',
      },
      { name: 'users', description: 'Admin management of users' },
    ],
  })
  app.addSchema(DirectoryError)
  app.decorateRequest('viewer', null)
  await app.register(cookie)
  app.addHook('onRequest', createOriginCheck(appOrigins(config)))

  const rateLimit = createRateLimit({
    limiter: deps.rateLimiter,
    bypassLocalhost: config.rateLimitBypassLocalhost,
    explainBypass: !config.isProduction,
    scope: 'directory',
  })

  const accounts = createAccountService({ db, clock })
  const roles = rolesModule({ db, clock })
  const envelope = await createDirectoryEnvelope({ db, clock, log, config })
  const crm = crmModule({ db, clock, log, jobs, envelope, config })
  const clients = clientsModule({ db, clock, log, accounts, crm: crm.crm })
  const auth = directoryAuthModule({
    db,
    log,
    accounts,
    profiles: clients.profiles,
    sessions,
    guards,
    rateLimit,
    secureCookies: config.isProduction,
    sessionCleanupCron: config.sessionCleanupCron,
  })
  const users = usersModule({ db, clock, accounts, profiles: clients.profiles, roles: roles.roles })
  const categories = categoriesModule({ db, clock, config, usage: categoryUsage })
  const favorites = favoritesModule({ db, clock })
  const featured = featuredModule({ db, clock, itemBySlug: (slug) => itemDisplay(db, slug) })
  // Made first: item, tag, company and settings writes clear it on this instance.
  const feedCache = feedsCache(clock)
  // The locations module is made further down; the map status asks it only when called.
  const site = siteModule({
    db,
    clock,
    config,
    locationIndex: () => locations.locations.indexStatus(),
    alsoClears: [feedCache],
  })
  const siteLocationEnabled = async () => (await site.site.settings()).data.location.enabled
  const geocoding = geocodingModule({ config, clock, siteLocationEnabled })
  // Made first: item, comment and notification writes clear it on this instance.
  const figures = dashboardCache(clock)
  const collections = collectionsModule({ db, clock })
  const items = itemsModule({
    db,
    clock,
    log,
    rateLimit,
    alsoClears: [categories.cache, figures.clears.items, feedCache],
    submissionsOpen: async () => (await site.site.settings()).data.submissions.enabled,
    categories: categories.categories,
    collections: itemCollections,
    links: itemLinkChecks,
    profiles: clients.profiles,
  })
  const notifications = notificationsModule({ db, clock, caches: [figures.clears.notices] })
  const tags = tagsModule({ db, clock, caches: [items.cache, feedCache], usage: tagUsage })
  const companies = companiesModule({ db, clock, caches: [items.cache, feedCache], usage: companyUsage })
  const comments = commentsModule({
    db,
    clock,
    rateLimit,
    moderation: async () => (await site.site.settings()).data.comments.moderation,
    commentsOpen: async () => (await site.site.settings()).data.comments.enabled,
    caches: [figures.clears.comments],
  })
  const dashboard = dashboardModule({
    db,
    clock,
    cache: figures.cache,
    items: items.items,
    comments: comments.comments,
    clients: clients.clients,
  })
  const contact = contactModule({
    db,
    clock,
    log,
    jobs,
    rateLimit,
    viewerOf: guards.viewerOf,
    site: site.site,
    config,
  })
  const sponsorAds = sponsorAdsModule({
    db,
    clock,
    log,
    jobs,
    gateways: createPaymentGateways(config),
    config,
    redirectOrigins: appOrigins(config),
    accounts,
    site: site.site,
  })
  const reports = reportsModule({
    db,
    clock,
    log,
    rateLimit,
    items: items.items,
    comments: comments.comments,
    profiles: clients.profiles,
    sessions,
    caches: [...items.items.caches, figures.clears.comments],
  })
  const locations = locationsModule({
    db,
    clock,
    log,
    jobs,
    rateLimit,
    geocoding: geocoding.geocoding,
    items: items.items,
    batchSize: config.locationIndexBatchSize,
    locationEnabled: async () => config.locationEnabled && (await siteLocationEnabled()),
    caches: items.items.caches,
  })
  const feeds = feedsModule({
    db,
    clock,
    config,
    rateLimit,
    settings: () => site.site.settings(),
    cache: feedCache,
  })
  const exports = exportsModule({
    db,
    config,
    rateLimit,
    settings: () => site.site.settings(),
    concurrent: database.source.kind === 'postgres',
  })
  const links = linksModule({ db, clock, log, jobs, config })
  const imports = importsModule({
    db,
    clock,
    log,
    jobs,
    config,
    rateLimit,
    categories: categories.categories,
    site: site.site,
    caches: items.items.caches,
  })
  const payments = paymentsModule({
    db,
    clock,
    log,
    rateLimit,
    config,
    handlers: [sponsorAds.paymentHandler],
  })

  const mcp = mcpModule({
    site: items.site,
    categories: categories.categories,
    featured: featured.featured,
    rateLimit,
  })

  installModules(
    app,
    [
      auth.module,
      users.module,
      categories.module,
      roles.module,
      clients.module,
      favorites.module,
      featured.module,
      items.module,
      notifications.module,
      dashboard.module,
      site.module,
      collections.module,
      tags.module,
      companies.module,
      comments.module,
      contact.module,
      crm.module,
      sponsorAds.module,
      payments.module,
      reports.module,
      geocoding.module,
      locations.module,
      feeds.module,
      exports.module,
      imports.module,
      links.module,
      mcp.module,
      adminConsoleModule(),
    ],
    { jobs, notifications: createNotifications(database.source, log) },
  )

  return { app }
}
