/**
 * What bench/content.ts and its server share: the seeded vocabulary of the directory's content, the
 * admin searches the load cycles through, and the server's ready line.
 *
 * An item is named after a coined brand (two syllables, sometimes three) and, mostly, a kind word
 * ("Velora Flow"); its description is built from the word lists below, so search words range from very
 * common (a description noun: ~10 % of items) through common (an adjective, an audience: 4–5 %) and
 * middling (a kind, a city: about 1–2 %) to rare (a two-syllable brand: ~0.1 %; a three-syllable one:
 * a handful of items).
 */

/** 40 categories of a directory of software and services: [id, name]. */
export const CATEGORIES = [
  ['analytics', 'Analytics'],
  ['accounting', 'Accounting'],
  ['ai-assistants', 'AI assistants'],
  ['api-tools', 'API tools'],
  ['automation', 'Automation'],
  ['backup', 'Backup'],
  ['booking', 'Booking'],
  ['crm', 'CRM'],
  ['customer-support', 'Customer support'],
  ['databases', 'Databases'],
  ['design', 'Design'],
  ['developer-tools', 'Developer tools'],
  ['e-commerce', 'E-commerce'],
  ['education', 'Education'],
  ['email-marketing', 'Email marketing'],
  ['events', 'Events'],
  ['finance', 'Finance'],
  ['forms', 'Forms'],
  ['hiring', 'Hiring'],
  ['hosting', 'Hosting'],
  ['hr', 'HR'],
  ['knowledge-base', 'Knowledge base'],
  ['legal', 'Legal'],
  ['maps', 'Maps'],
  ['marketing', 'Marketing'],
  ['monitoring', 'Monitoring'],
  ['music', 'Music'],
  ['note-taking', 'Note taking'],
  ['payments', 'Payments'],
  ['photography', 'Photography'],
  ['podcasting', 'Podcasting'],
  ['project-management', 'Project management'],
  ['scheduling', 'Scheduling'],
  ['security', 'Security'],
  ['seo', 'SEO'],
  ['social-media', 'Social media'],
  ['spreadsheets', 'Spreadsheets'],
  ['testing', 'Testing'],
  ['video', 'Video'],
  ['writing', 'Writing'],
] as const

/** 50 topics × 4 forms ("Open source", "Open source tools" …): the 200 tags. */
export const TAG_TOPICS = [
  'Open source',
  'Self-hosted',
  'Free',
  'Freemium',
  'Paid',
  'No-code',
  'Low-code',
  'AI',
  'Mobile',
  'Desktop',
  'Web',
  'CLI',
  'API',
  'Privacy',
  'Security',
  'Remote work',
  'Productivity',
  'Collaboration',
  'Startup',
  'Enterprise',
  'Education',
  'Nonprofit',
  'Design',
  'Developer',
  'Marketing',
  'Sales',
  'Support',
  'Finance',
  'Health',
  'Music',
  'Video',
  'Photo',
  'Writing',
  'Data',
  'Cloud',
  'Offline',
  'Chrome extension',
  'Slack app',
  'WordPress',
  'Shopify',
  'Figma plugin',
  'Notion',
  'GitHub',
  'iOS',
  'Android',
  'Linux',
  'macOS',
  'Windows',
  'Accessibility',
  'Sustainability',
] as const
export const TAG_FORMS = ['', ' tools', ' apps', ' resources'] as const

/** First syllables of the coined brands: 30 of them, so a three-letter prefix matches ~3 % of items. */
export const BRAND_STARTS = [
  'vel',
  'zen',
  'kor',
  'lum',
  'mir',
  'nex',
  'ori',
  'pra',
  'qui',
  'ras',
  'sol',
  'tal',
  'ux',
  'vor',
  'wen',
  'xa',
  'yel',
  'zar',
  'bri',
  'cal',
  'dra',
  'fen',
  'gal',
  'hal',
  'ira',
  'jun',
  'kel',
  'lor',
  'mar',
  'nov',
] as const
/** Second syllables: 30 × 30 two-syllable brands, ~110 items each at 100,000 items. */
export const BRAND_MIDDLES = [
  'ora',
  'ix',
  'ent',
  'ara',
  'io',
  'una',
  'eon',
  'ly',
  'ida',
  'ano',
  'ett',
  'ova',
  'ium',
  'ado',
  'ilo',
  'ex',
  'ari',
  'oni',
  'uma',
  'eko',
  'ity',
  'ana',
  'ero',
  'ine',
  'ava',
  'oto',
  'ula',
  'iri',
  'one',
  'isk',
] as const
/** Third syllables, for a fifth of the brands: 9,000 of those, a few items each. */
export const BRAND_ENDS = ['a', 'on', 'ia', 'ux', 'us', 'o', 'is', 'en', 'ar', 'um'] as const

/** What follows the brand in 70 % of names ("Velora Flow"): ~2.3 % of items each. */
export const KINDS = [
  'Studio',
  'Hub',
  'Cloud',
  'Desk',
  'Flow',
  'Kit',
  'Lab',
  'Base',
  'Stack',
  'Works',
  'Pilot',
  'Box',
  'Sync',
  'Point',
  'Line',
  'Grid',
  'Forge',
  'Track',
  'Board',
  'Space',
  'Link',
  'Wave',
  'Nest',
  'Loop',
  'Dock',
  'Craft',
  'Scope',
  'Vault',
  'Pulse',
  'Shift',
] as const

/** The description's first word: ~5 % of items each. */
export const ADJECTIVES = [
  'simple',
  'open',
  'fast',
  'friendly',
  'modern',
  'secure',
  'lightweight',
  'powerful',
  'affordable',
  'collaborative',
  'visual',
  'smart',
  'flexible',
  'reliable',
  'minimal',
  'complete',
  'private',
  'scalable',
  'intuitive',
  'hosted',
] as const

/** What the item is: ~10 % of items each, the most common words. */
export const NOUNS = [
  'platform',
  'app',
  'tool',
  'service',
  'suite',
  'toolkit',
  'software',
  'workspace',
  'solution',
  'assistant',
] as const

/** Who it is for: ~4 % of items each. */
export const AUDIENCES = [
  'startups',
  'small businesses',
  'agencies',
  'developers',
  'designers',
  'freelancers',
  'remote teams',
  'nonprofits',
  'schools',
  'students',
  'creators',
  'marketers',
  'sales teams',
  'support teams',
  'enterprises',
  'researchers',
  'writers',
  'photographers',
  'musicians',
  'restaurants',
  'shops',
  'clinics',
  'lawyers',
  'accountants',
  'recruiters',
] as const

/** Two or three per description, the first ones more often than the last (~14 % down to ~5 % of items). */
export const FEATURES = [
  'real-time dashboards',
  'team workspaces',
  'offline mode',
  'single sign-on',
  'mobile apps',
  'custom reports',
  'audit logs',
  'role-based access',
  'two-factor login',
  'a REST API',
  'webhooks',
  'Slack integration',
  'CSV import',
  'data export',
  'automatic backups',
  'version history',
  'dark mode',
  'ready-made templates',
  'scheduled tasks',
  'email alerts',
  'live chat',
  'multi-language support',
  'calendar sync',
  'custom domains',
  'white labeling',
  'usage analytics',
  'AI suggestions',
  'bulk editing',
  'granular permissions',
  'an open source core',
  'self-hosting',
  'end-to-end encryption',
  'GDPR tooling',
  'Zapier integration',
  'Stripe billing',
  'Google Drive sync',
  'keyboard shortcuts',
  'unlimited projects',
  'a generous free tier',
  'priority support',
] as const

/**
 * The admin searches the load cycles through, each request the next one: 1–2 words, whole or prefixes,
 * common to rare, some with a filter. `label` says roughly how selective it is.
 */
export const ADMIN_SEARCHES: readonly { label: string; query: string }[] = [
  { label: 'very common word', query: 'search=platform' },
  { label: 'common word', query: 'search=simple' },
  { label: 'common word', query: 'search=startups' },
  { label: 'rare brand', query: 'search=velora' },
  { label: 'kind word', query: 'search=flow' },
  { label: 'three-letter prefix', query: 'search=nex' },
  { label: 'two common words', query: 'search=secure+developers' },
  { label: 'city', query: 'search=berlin' },
  { label: 'common + status', query: 'search=tool&status=pending' },
  { label: 'very rare brand', query: 'search=zenixon' },
  { label: 'feature word', query: 'search=dashboards' },
  { label: 'kind + category', query: 'search=studio&category=design' },
  { label: 'two-letter prefix', query: 'search=co' },
  { label: 'rare brand', query: 'search=korado' },
  { label: 'word + status', query: 'search=webhooks&status=draft' },
  { label: 'feature + audience', query: 'search=offline+students' },
  { label: 'rare brand + kind', query: 'search=lumeon+hub' },
  { label: 'audience + category', query: 'search=agencies&category=analytics' },
  { label: 'rejected, prefix', query: 'search=ma&status=rejected' },
  { label: 'no match', query: 'search=qwertyuiop' },
]

/** The words `--explain` plans: one common, one rare (and the plain first page). */
export const EXPLAIN_COMMON = 'platform'
export const EXPLAIN_RARE = 'velora'

/** The one JSON line the server prints on stdout once it listens. */
export interface ServerReady {
  port: number
  /** `curio_session=...`, from POST /api/auth/signin as the seeded admin. */
  cookie: string
  seed: {
    items: number
    categories: number
    tags: number
    companies: number
    itemTags: number
    featured: number
    statuses: Record<string, number>
    migrateMs: number
    seedMs: number
    vacuumAnalyzeMs: number
    totalMs: number
    itemsTableMb: number | null
    searchIndexMb: number | null
    poolSize: number
    server: string
  }
}
