/**
 * The demo directory's content: a directory of software tools. Everything is derived from these lists and a
 * fixed random seed, so every run of `seed --demo` describes the same site.
 */

export const DEMO_CATEGORIES = [
  'Design',
  'Development',
  'Productivity',
  'Marketing',
  'Analytics',
  'AI & Machine Learning',
  'Finance',
  'Communication',
  'Security',
  'DevOps',
  'Education',
  'E-commerce',
] as const

export const DEMO_TAGS = [
  'Open source',
  'Free plan',
  'Self-hosted',
  'API',
  'Mobile app',
  'Desktop app',
  'Browser extension',
  'Team',
  'Enterprise',
  'Privacy-first',
  'No-code',
  'Collaboration',
  'Automation',
  'Real-time',
  'Offline',
  'GDPR',
  'SSO',
  'Integrations',
  'CLI',
  'Templates',
  'Dashboards',
  'Reports',
  'Markdown',
  'Kanban',
  'Video',
  'Chat',
  'Email',
  'Payments',
  'Invoicing',
  'Accessibility',
  'Dark mode',
  'AI assistant',
  'Version history',
  'Webhooks',
  'Plugins',
  'Lifetime deal',
  'Startup friendly',
  'Education discount',
  'Nonprofit discount',
  'Made in Europe',
] as const

/** Two halves of product names: `Pixel` + `forge` → `Pixelforge`. */
const NAME_STARTS = [
  'Pixel',
  'Cloud',
  'Flow',
  'Bright',
  'Signal',
  'Swift',
  'North',
  'Quiet',
  'Paper',
  'Stack',
  'Orbit',
  'Maple',
  'Clear',
  'Spark',
  'Harbor',
  'Copper',
  'Lumen',
  'Cedar',
  'Nimbus',
  'Atlas',
] as const
const NAME_ENDS = [
  'forge',
  'desk',
  'ly',
  'base',
  'kit',
  'hub',
  'pad',
  'works',
  'board',
  'sync',
  'lab',
  'mint',
  'wave',
  'nest',
  'loop',
] as const

/** What each category's tools do, for descriptions. */
export const CATEGORY_PHRASES: Record<(typeof DEMO_CATEGORIES)[number], readonly string[]> = {
  Design: ['vector illustration', 'interface prototyping', 'brand asset libraries', 'icon design'],
  Development: ['code review', 'API testing', 'database migrations', 'feature flags'],
  Productivity: ['task planning', 'note taking', 'calendar scheduling', 'focus timers'],
  Marketing: ['newsletter campaigns', 'social media scheduling', 'landing pages', 'SEO audits'],
  Analytics: ['product analytics', 'privacy-friendly web statistics', 'funnel reports', 'A/B testing'],
  'AI & Machine Learning': ['writing assistance', 'image generation', 'transcription', 'model monitoring'],
  Finance: ['invoicing', 'expense tracking', 'bookkeeping', 'subscription billing'],
  Communication: ['team chat', 'video meetings', 'shared inboxes', 'async updates'],
  Security: ['password management', 'secret scanning', 'two-factor authentication', 'audit logs'],
  DevOps: ['uptime monitoring', 'log search', 'continuous deployment', 'incident response'],
  Education: ['online courses', 'flashcards', 'language practice', 'quizzes'],
  'E-commerce': ['online storefronts', 'inventory management', 'shipping labels', 'product reviews'],
}

const AUDIENCES = [
  'freelancers',
  'small teams',
  'startups',
  'agencies',
  'students',
  'enterprises',
  'developers',
  'creators',
] as const
const QUALITIES = [
  'fast',
  'simple',
  'thoughtful',
  'lightweight',
  'powerful',
  'friendly',
  'reliable',
  'beautiful',
] as const

export const DEMO_COMPANIES = [
  'Northwind Labs',
  'Blue Harbor Software',
  'Copperleaf',
  'Quiet Signal GmbH',
  'Maple & Co',
  'Orbital Tools',
  'Brightside Apps',
  'Cedar Systems',
  'Lumen Studio',
  'Paperplane Inc.',
  'Atlas Digital',
  'Nimbus Works',
  'Stackwise',
  'Clearview Data',
  'Sparkline',
  'Flowstate AB',
  'Harbor Light',
  'Swiftlane',
  'Mintcraft',
  'Wavelength Oy',
  'Loopback Ltd',
  'Nestling',
  'Boardroom Labs',
  'Forgepoint',
  'Kitemark',
  'Hubspoke',
  'Padfoot Software',
  'Synchro',
  'Basecamp Road',
  'Deskbound',
] as const

/** Places an item may be, with coordinates; about a fifth of the items are remote instead. */
export const DEMO_CITIES = [
  { city: 'Lisbon', country: 'Portugal', latitude: 38.7223, longitude: -9.1393 },
  { city: 'Berlin', country: 'Germany', latitude: 52.52, longitude: 13.405 },
  { city: 'Amsterdam', country: 'Netherlands', latitude: 52.3676, longitude: 4.9041 },
  { city: 'Stockholm', country: 'Sweden', latitude: 59.3293, longitude: 18.0686 },
  { city: 'Paris', country: 'France', latitude: 48.8566, longitude: 2.3522 },
  { city: 'London', country: 'United Kingdom', latitude: 51.5072, longitude: -0.1276 },
  { city: 'New York', country: 'United States', latitude: 40.7128, longitude: -74.006 },
  { city: 'San Francisco', country: 'United States', latitude: 37.7749, longitude: -122.4194 },
  { city: 'Toronto', country: 'Canada', latitude: 43.6532, longitude: -79.3832 },
  { city: 'Tokyo', country: 'Japan', latitude: 35.6762, longitude: 139.6503 },
  { city: 'Singapore', country: 'Singapore', latitude: 1.3521, longitude: 103.8198 },
  { city: 'Sydney', country: 'Australia', latitude: -33.8688, longitude: 151.2093 },
  { city: 'São Paulo', country: 'Brazil', latitude: -23.5505, longitude: -46.6333 },
  { city: 'Nairobi', country: 'Kenya', latitude: -1.2921, longitude: 36.8219 },
  { city: 'Bangalore', country: 'India', latitude: 12.9716, longitude: 77.5946 },
] as const

export const DEMO_COLLECTIONS = [
  { name: 'Editor’s picks', description: 'The tools our editors reach for every day.' },
  { name: 'Best free tools', description: 'Excellent tools with a generous free plan.' },
  { name: 'Open-source favourites', description: 'Tools you can read, change and host yourself.' },
  { name: 'For remote teams', description: 'Everything a distributed team needs to work together.' },
  { name: 'New this month', description: 'Recently added to the directory.' },
] as const

export const DEMO_MEMBERS = [
  { name: 'Ada Lovelace', email: 'ada@demo.curio.local', company: 'Analytical Engines', jobTitle: 'Analyst' },
  {
    name: 'Grace Hopper',
    email: 'grace@demo.curio.local',
    company: 'Compilers Inc.',
    jobTitle: 'Rear admiral',
  },
  {
    name: 'Alan Turing',
    email: 'alan@demo.curio.local',
    company: 'Bletchley Labs',
    jobTitle: 'Mathematician',
  },
  {
    name: 'Katherine Johnson',
    email: 'katherine@demo.curio.local',
    company: 'Orbital Tools',
    jobTitle: 'Engineer',
  },
  { name: 'Linus Pauling', email: 'linus@demo.curio.local', company: null, jobTitle: 'Chemist' },
] as const

/** A small deterministic generator (mulberry32): the same sequence on every run. */
export function randomSequence(seed: number) {
  let state = seed >>> 0
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  return {
    next,
    below: (n: number) => Math.floor(next() * n),
    pick: <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!,
  }
}

export type Random = ReturnType<typeof randomSequence>

/** The `index`-th demo product name: every start with every end, then numbered. */
export function productName(index: number): string {
  const start = NAME_STARTS[index % NAME_STARTS.length]!
  const end = NAME_ENDS[Math.floor(index / NAME_STARTS.length) % NAME_ENDS.length]!
  const round = Math.floor(index / (NAME_STARTS.length * NAME_ENDS.length))
  return `${start}${end}${round > 0 ? ` ${round + 1}` : ''}`
}

export function productDescription(random: Random, name: string, category: (typeof DEMO_CATEGORIES)[number]) {
  const phrase = random.pick(CATEGORY_PHRASES[category])
  const other = random.pick(CATEGORY_PHRASES[category])
  return (
    `${name} is a ${random.pick(QUALITIES)} tool for ${phrase} built for ${random.pick(AUDIENCES)}. ` +
    `It also handles ${other === phrase ? 'sharing and exports' : other}, with a clean interface and sensible defaults.`
  )
}
