import { type SQL, sql } from 'drizzle-orm'
/** What bench/admin-clients.ts and its server share: the seeded vocabulary and the server's ready line. */

export const FIRST_NAMES = [
  'Ada',
  'Alan',
  'Amara',
  'Anna',
  'Arjun',
  'Beatriz',
  'Carlos',
  'Chen',
  'Chloe',
  'Daniel',
  'Elena',
  'Emma',
  'Farah',
  'Felix',
  'Grace',
  'Hannah',
  'Hiro',
  'Ibrahim',
  'Isabel',
  'Jamal',
  'Julia',
  'Kenji',
  'Laura',
  'Leila',
  'Lucas',
  'Maria',
  'Mateo',
  'Mei',
  'Nadia',
  'Noah',
  'Olivia',
  'Omar',
  'Priya',
  'Rafael',
  'Rosa',
  'Samuel',
  'Sofia',
  'Tariq',
  'Yuki',
  'Zoe',
] as const

export const LAST_NAMES = [
  'Anderson',
  'Bakker',
  'Bernard',
  'Castillo',
  'Chowdhury',
  'Costa',
  'Dubois',
  'Eriksson',
  'Fischer',
  'Garcia',
  'Gonzalez',
  'Haddad',
  'Hansen',
  'Ito',
  'Jensen',
  'Kaur',
  'Khan',
  'Kim',
  'Kowalski',
  'Lopez',
  'Martin',
  'Moreau',
  'Muller',
  'Nakamura',
  'Nguyen',
  'Novak',
  'Okafor',
  'Olsen',
  'Patel',
  'Petrov',
  'Rossi',
  'Santos',
  'Schmidt',
  'Silva',
  'Suzuki',
  'Tanaka',
  'Walker',
  'Weber',
  'Williams',
  'Yilmaz',
] as const

/** 50 × 40 company names: about 2,000 distinct. */
export const COMPANY_WORDS = [
  'Acme',
  'Apex',
  'Arctic',
  'Aurora',
  'Beacon',
  'Blue',
  'Bright',
  'Cedar',
  'Cobalt',
  'Crimson',
  'Delta',
  'Eagle',
  'Echo',
  'Ember',
  'Evergreen',
  'Falcon',
  'Golden',
  'Granite',
  'Harbor',
  'Horizon',
  'Iron',
  'Jade',
  'Juniper',
  'Keystone',
  'Lumen',
  'Maple',
  'Meridian',
  'Nimbus',
  'Northern',
  'Nova',
  'Oak',
  'Orbit',
  'Pacific',
  'Pine',
  'Pioneer',
  'Quantum',
  'Red',
  'River',
  'Sage',
  'Silver',
  'Summit',
  'Sun',
  'Terra',
  'Tidal',
  'Titan',
  'Union',
  'Vertex',
  'Willow',
  'Zenith',
  'Zephyr',
] as const
export const COMPANY_SUFFIXES = [
  'Analytics',
  'Bakery',
  'Brands',
  'Builders',
  'Capital',
  'Collective',
  'Consulting',
  'Designs',
  'Digital',
  'Dynamics',
  'Energy',
  'Foods',
  'Goods',
  'Group',
  'Health',
  'Holdings',
  'Industries',
  'Labs',
  'Logistics',
  'Media',
  'Motors',
  'Networks',
  'Partners',
  'Press',
  'Robotics',
  'Solutions',
  'Studio',
  'Supply',
  'Systems',
  'Tech',
  'Textiles',
  'Trading',
  'Travel',
  'Ventures',
  'Works',
  'Apparel',
  'Audio',
  'Clinic',
  'Farms',
  'Games',
] as const

export const INDUSTRIES = [
  'Technology',
  'Healthcare',
  'Finance',
  'Education',
  'Retail',
  'Manufacturing',
  'Hospitality',
  'Real Estate',
  'Media',
  'Entertainment',
  'Transportation',
  'Logistics',
  'Energy',
  'Agriculture',
  'Construction',
  'Telecommunications',
  'Legal Services',
  'Consulting',
  'Marketing',
  'Nonprofit',
  'Government',
  'Insurance',
  'Pharmaceuticals',
  'Automotive',
  'Aerospace',
  'Fashion',
  'Food and Beverage',
  'Sports',
  'Tourism',
  'Design',
] as const

/** 50 countries, each with its best-known city: the location is "City, Country". */
export const PLACES = [
  ['Paris', 'France'],
  ['Berlin', 'Germany'],
  ['Madrid', 'Spain'],
  ['Rome', 'Italy'],
  ['Lisbon', 'Portugal'],
  ['Amsterdam', 'Netherlands'],
  ['Brussels', 'Belgium'],
  ['Vienna', 'Austria'],
  ['Zurich', 'Switzerland'],
  ['Stockholm', 'Sweden'],
  ['Oslo', 'Norway'],
  ['Copenhagen', 'Denmark'],
  ['Helsinki', 'Finland'],
  ['Dublin', 'Ireland'],
  ['London', 'United Kingdom'],
  ['Warsaw', 'Poland'],
  ['Prague', 'Czechia'],
  ['Budapest', 'Hungary'],
  ['Athens', 'Greece'],
  ['Istanbul', 'Turkey'],
  ['New York', 'United States'],
  ['Toronto', 'Canada'],
  ['Mexico City', 'Mexico'],
  ['Sao Paulo', 'Brazil'],
  ['Buenos Aires', 'Argentina'],
  ['Santiago', 'Chile'],
  ['Bogota', 'Colombia'],
  ['Lima', 'Peru'],
  ['Tokyo', 'Japan'],
  ['Seoul', 'South Korea'],
  ['Shanghai', 'China'],
  ['Taipei', 'Taiwan'],
  ['Singapore', 'Singapore'],
  ['Bangkok', 'Thailand'],
  ['Hanoi', 'Vietnam'],
  ['Jakarta', 'Indonesia'],
  ['Manila', 'Philippines'],
  ['Mumbai', 'India'],
  ['Karachi', 'Pakistan'],
  ['Dubai', 'United Arab Emirates'],
  ['Tel Aviv', 'Israel'],
  ['Cairo', 'Egypt'],
  ['Lagos', 'Nigeria'],
  ['Nairobi', 'Kenya'],
  ['Cape Town', 'South Africa'],
  ['Casablanca', 'Morocco'],
  ['Sydney', 'Australia'],
  ['Auckland', 'New Zealand'],
  ['Reykjavik', 'Iceland'],
  ['Tallinn', 'Estonia'],
] as const

export const EMAIL_DOMAINS = [
  'gmail.com',
  'outlook.com',
  'yahoo.com',
  'proton.me',
  'example.com',
  'mail.test',
] as const

/** Fragments (3–5 letters) of the seeded names and addresses, for `search`. */
export const SEARCH_FRAGMENTS = [
  'ann',
  'mart',
  'chen',
  'kim',
  'oliv',
  'garc',
  'khan',
  'silva',
  'yuki',
  'rossi',
  'amara',
  'petr',
  'noah',
  'ito',
  'walk',
  'leila',
  'nova',
  'hiro',
  'santo',
  'beat',
] as const

/** Words of industries, for `industrySearch`. */
export const INDUSTRY_WORDS = [
  'tech',
  'health',
  'finance',
  'retail',
  'media',
  'energy',
  'legal',
  'sport',
  'design',
  'food',
  'travel',
  'tour',
  'insur',
  'auto',
  'educ',
  'consult',
] as const

/** The one JSON line the server prints on stdout once it listens. */
export interface ServerReady {
  port: number
  /** `curio_session=...`, from POST /api/auth/signin as the seeded admin. */
  cookie: string
  seed: {
    clients: number
    migrateMs: number
    seedMs: number
    vacuumAnalyzeMs: number
    totalMs: number
    tableMb: number | null
    poolSize: number
    server: string
  }
}

/** A SQL array literal of words (bench data only: quotes doubled). */
export const sqlList = (items: readonly string[]) =>
  sql.raw(`array[${items.map((item) => `'${item.replace(/'/g, "''")}'`).join(', ')}]`)
/** The uuid of the n-th seeded row of a kind (`8000` users, `a000` profiles …): stable across runs. */
export const seededUuid = (kind: string, n: string) =>
  sql.raw(`('00000000-0000-4000-${kind}-' || lpad(to_hex(${n}), 12, '0'))::uuid`)

/** Not a real hash of anything: only the admin signs in. */
export const DUMMY_PASSWORD_HASH =
  '$argon2id$v=19$m=19456,t=2,p=1$YmVuY2gtc2FsdC1ub3QtcmVhbA$YmVuY2gtZHVtbXktaGFzaC1ub3QtYS1wYXNzd29yZA'

/**
 * Seeds `count` users with their client profiles in the caller's transaction (after its `setseed`): one
 * drawing per client in a temporary table, then users and profiles from it, in creation order (as a live
 * table grows), created over the last two years. Distributions: status 70/12/12/6 active/trial/inactive/
 * suspended, plan 60/25/15 free/standard/premium, account type 55/35/10, provider 60/25/10/5. User n is
 * `seededUuid('8000', n)`, its profile `seededUuid('a000', n)`.
 */
export async function seedClients(tx: { execute(query: SQL): Promise<unknown> }, count: number) {
  const list = sqlList
  const userUuid = (n: string) => seededUuid('8000', n)
  const profileUuid = (n: string) => seededUuid('a000', n)
  const clientCount = count
  await tx.execute(sql`
    create temporary table bench_draw on commit drop as
    select n,
      (${list(FIRST_NAMES)})[1 + floor(random() * ${FIRST_NAMES.length})::int] as first_name,
      (${list(LAST_NAMES)})[1 + floor(random() * ${LAST_NAMES.length})::int] as last_name,
      (${list(EMAIL_DOMAINS)})[1 + floor(random() * ${EMAIL_DOMAINS.length})::int] as domain,
      case when random() < 0.9 then
        (${list(COMPANY_WORDS)})[1 + floor(random() * ${COMPANY_WORDS.length})::int] || ' ' ||
        (${list(COMPANY_SUFFIXES)})[1 + floor(random() * ${COMPANY_SUFFIXES.length})::int] end as company,
      case when random() < 0.95 then
        (${list(INDUSTRIES)})[1 + floor(power(random(), 1.5) * ${INDUSTRIES.length})::int] end as industry,
      case when random() < 0.85 then 1 + floor(power(random(), 1.3) * ${PLACES.length})::int end as place,
      random() as r_status, random() as r_plan, random() as r_type, random() as r_provider,
      random() as r_active, random() as r_extra,
      now() - random() * interval '730 days' as created_at
    from generate_series(1, ${clientCount}::int) as n`)
  await tx.execute(sql`
    alter table bench_draw add column provider text, add column last_active_at timestamptz`)
  await tx.execute(sql`
    update bench_draw set
      provider = case when r_provider < 0.6 then 'credentials' when r_provider < 0.85 then 'google'
        when r_provider < 0.95 then 'github' else 'microsoft' end,
      last_active_at = case when r_active < 0.1 then null
        else created_at + power(r_active, 0.5) * (now() - created_at) end`)
  await tx.execute(sql`
    insert into directory.users
      (id, username, email, name, password_hash, provider, role_id, status, login_count, last_login_at,
       created_at, updated_at)
    select ${userUuid('n')}, lower(first_name) || '_' || n,
      lower(first_name) || '.' || lower(last_name) || n || '@' || domain,
      first_name || ' ' || last_name,
      case when provider = 'credentials' then ${DUMMY_PASSWORD_HASH} end,
      provider, 'user', case when r_status < 0.94 then 'active' else 'inactive' end,
      floor(r_active * 200)::int, last_active_at, created_at, coalesce(last_active_at, created_at)
    from bench_draw order by created_at`)
  await tx.execute(sql`
    insert into directory.client_profiles
      (id, user_id, email, display_name, username, bio, job_title, company, industry, phone, website,
       location, avatar, account_type, status, plan, provider, email_verified, two_factor_enabled,
       total_submissions, joined_at, last_active_at, created_at, updated_at)
    select ${profileUuid('n')}, ${userUuid('n')},
      lower(first_name) || '.' || lower(last_name) || n || '@' || domain,
      first_name || ' ' || last_name, lower(first_name) || '_' || n,
      case when r_extra < 0.4 then 'Working on ' || lower(coalesce(industry, 'things')) || ' projects' end,
      case when r_extra < 0.6 then (array['Founder', 'Engineer', 'Designer', 'Manager', 'Consultant'])
        [1 + floor(r_extra * 8)::int] end,
      company, industry,
      case when r_extra > 0.6 then '+1 555 ' || lpad((n % 10000)::text, 4, '0') end,
      case when r_extra > 0.7 and company is not null
        then 'https://' || lower(replace(company, ' ', '-')) || '.example' end,
      case when place is not null then (${list(PLACES.map(([city]) => city))})[place] || ', ' ||
        (${list(PLACES.map(([, country]) => country))})[place] end,
      case when r_extra < 0.5 then 'https://avatars.example/' || n || '.png' end,
      case when r_type < 0.55 then 'individual' when r_type < 0.9 then 'business' else 'enterprise' end,
      case when r_status < 0.7 then 'active' when r_status < 0.82 then 'trial'
        when r_status < 0.94 then 'inactive' else 'suspended' end,
      case when r_plan < 0.6 then 'free' when r_plan < 0.85 then 'standard' else 'premium' end,
      provider, r_extra < 0.8, r_extra < 0.15,
      floor(power(r_plan, 2) * 51)::int,
      created_at, last_active_at, created_at, coalesce(last_active_at, created_at)
    from bench_draw order by created_at`)
}
