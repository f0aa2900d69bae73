/**
 * The load of bench:burst: the data it writes through the API, the varied reads, the malformed requests
 * drawn with the test suite's generators, and autocannon going through a list of requests.
 */
import autocannon from 'autocannon'
import fc from 'fast-check'
import { type OpenApiDocument, operationsOf } from '../test/harness/openapi.ts'
import { type FuzzRequest, requestsFor, wrongMethods } from '../test/harness/requests.ts'
import { Pools, render } from '../test/harness/send.ts'
import { directorySession } from './lib.ts'

export const ADMIN_EMAIL = 'burst-admin@example.test'
export const ADMIN_PASSWORD = 'burst-admin-password'
const OWNER_PASSWORD = 'burst-owner-password'
const READ_ITEMS = 300
const FEATURED_ENTRIES = 6
const SEED = 20261127

export interface AutocannonRequest {
  method: string
  path: string
  headers?: Record<string, string>
  body?: string
  onResponse?: (status: number) => void
}

async function postJson(url: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: new URL(url).origin, ...headers },
    body: JSON.stringify(body),
  })
  const text = await response.text()
  if (response.status >= 300) throw new Error(`POST ${url} answered ${response.status}: ${text}`)
  return text ? JSON.parse(text) : undefined
}

const WORDS = ['blue', 'quick', 'atlas', 'river', 'paper', 'signal', 'orbit', 'cedar', 'pixel', 'harbor']

export interface Seeded {
  adminCookie: string
  slugs: string[]
  ownerToken: string
  workIds: string[]
}

/** Items and a shelf in the directory, an owner with works on the platform: all through the API. */
export async function seed(platform: string, directory: string, directoryPort: number): Promise<Seeded> {
  const adminCookie = await directorySession(directoryPort, '/api/auth/signin', {
    email: ADMIN_EMAIL,
    password: ADMIN_PASSWORD,
  })
  const slugs: string[] = []
  for (let start = 0; start < READ_ITEMS; start += 10) {
    const created = await Promise.all(
      Array.from({ length: Math.min(10, READ_ITEMS - start) }, (_, offset) => {
        const index = start + offset
        const words = [WORDS[index % WORDS.length], WORDS[(index * 7 + 3) % WORDS.length]]
        return postJson(
          `${directory}/api/admin/items`,
          {
            name: `Burst ${words.join(' ')} tool ${index}`,
            description: `Tool ${index} of the burst benchmark: ${words.join(', ')}. `.repeat(8),
            url: `https://burst-${index}.example`,
            status: 'published',
          },
          { cookie: adminCookie },
        )
      }),
    )
    for (const answer of created) slugs.push(answer.data.slug)
  }
  for (let index = 0; index < FEATURED_ENTRIES; index++) {
    await postJson(
      `${directory}/api/admin/featured-items`,
      {
        itemSlug: slugs[index],
        itemName: `Featured ${index}`,
        itemDescription: `Featured entry ${index} of the burst benchmark.`,
        featuredOrder: index,
      },
      { cookie: adminCookie },
    )
  }
  const owner = await postJson(`${platform}/api/auth/register`, {
    email: 'burst-owner@example.test',
    password: OWNER_PASSWORD,
    name: 'Burst Owner',
  })
  const ownerToken = owner.accessToken as string
  const workIds: string[] = []
  for (let index = 0; index < 5; index++) {
    const work = await postJson(
      `${platform}/api/works`,
      { name: `Burst directory ${index}`, description: 'Made by the burst benchmark.' },
      { authorization: `Bearer ${ownerToken}` },
    )
    workIds.push((work.data ?? work).id)
  }
  return { adminCookie, slugs, ownerToken, workIds }
}

/** Every connection walks these in turn: different pages, searches and items, so each cache fills. */
export function readRequests(seeded: Seeded): {
  directory: AutocannonRequest[]
  platform: AutocannonRequest[]
} {
  const directory: AutocannonRequest[] = []
  for (let index = 0; index < 400; index++) {
    const word = WORDS[index % WORDS.length]!
    const other = WORDS[(index * 3 + 1) % WORDS.length]!
    switch (index % 8) {
      case 0:
        directory.push({ method: 'GET', path: `/api/items?page=${1 + (index % 15)}&limit=20` })
        break
      case 1:
        directory.push({
          method: 'GET',
          path: `/api/items?search=${word}%20${other.slice(0, 3)}&limit=${10 + (index % 40)}`,
        })
        break
      case 2:
        directory.push({ method: 'GET', path: `/api/items/${seeded.slugs[index % seeded.slugs.length]}` })
        break
      case 3:
        directory.push({ method: 'GET', path: '/api/featured-items' })
        break
      case 4:
        directory.push({ method: 'GET', path: '/api/current-user' })
        break
      case 5:
        directory.push({
          method: 'GET',
          path: `/api/items?sort=name&page=${1 + (index % 5)}&limit=${20 + (index % 30)}`,
        })
        break
      case 6:
        directory.push({
          method: 'GET',
          path: `/api/admin/items?search=${word}&limit=10&page=${1 + (index % 3)}`,
          headers: { cookie: seeded.adminCookie },
        })
        break
      default:
        directory.push({ method: 'GET', path: index % 80 === 7 ? '/openapi.json' : '/healthz' })
    }
  }
  const bearer = { authorization: `Bearer ${seeded.ownerToken}` }
  const platform: AutocannonRequest[] = []
  for (let index = 0; index < 100; index++) {
    switch (index % 5) {
      case 0:
        platform.push({ method: 'GET', path: '/api/works', headers: bearer })
        break
      case 1:
        platform.push({
          method: 'GET',
          path: `/api/works/${seeded.workIds[index % seeded.workIds.length]}`,
          headers: bearer,
        })
        break
      case 2:
        platform.push({ method: 'GET', path: `/api/activity-log?limit=${5 + (index % 20)}`, headers: bearer })
        break
      case 3:
        platform.push({ method: 'GET', path: '/healthz' })
        break
      default:
        platform.push({ method: 'GET', path: index % 20 === 4 ? '/openapi.json' : '/readyz' })
    }
  }
  return { directory, platform }
}

const printable = (text: string) => /^[\x21-\x7e]*$/.test(text)
const headerSafe = (text: string) => /^[\t\x20-\x7e\x80-\xff]*$/.test(text)

/**
 * `count` malformed requests for a service, drawn (with a fixed seed) by the harness's generators from its
 * OpenAPI document, sent as `auths` names them. Requests that cannot go on the wire as raw HTTP/1.1 (a
 * space or a line break in the URL or a header) are left out: the in-process harness covers those.
 */
export function malformedRequests(
  document: OpenApiDocument,
  auths: Record<string, Record<string, string>>,
  count: number,
  /** Called with `<status> <operation>` for each 5xx answer. */
  onServerError: (key: string) => void,
): AutocannonRequest[] {
  const operations = operationsOf(document)
  const sources = { auths: Object.keys(auths).map((name) => [name, 1] as const) }
  const wrong = wrongMethods(operations, sources)
  const generator: fc.Arbitrary<FuzzRequest> = fc.oneof(
    ...operations.map((operation) => ({ weight: 10, arbitrary: requestsFor(operation, sources) })),
    ...(wrong ? [{ weight: 3, arbitrary: wrong }] : []),
  )
  const pools = new Pools()
  const requests: AutocannonRequest[] = []
  for (const request of fc.sample(generator, { numRuns: count, seed: SEED })) {
    const { url, headers, payload } = render(request, pools, auths[request.auth] ?? {})
    if (!printable(url)) continue
    if (!Object.entries(headers).every(([name, value]) => printable(name) && headerSafe(String(value))))
      continue
    requests.push({
      method: request.method,
      path: url,
      headers,
      ...(payload === undefined ? {} : { body: payload }),
      onResponse: (status) => {
        if (status >= 500) onServerError(`${status} ${request.operation}`)
      },
    })
  }
  return requests
}

/**
 * Load from `connections` connections that share one walk through `requests`: each connection sends the
 * next request of the list not yet sent (autocannon alone would have every connection start at the
 * first), so that a run of N requests sends the first N of the list, each once, round and round.
 */
export function load(
  url: string,
  requests: AutocannonRequest[],
  options: { connections: number; duration?: number; amount?: number },
) {
  let next = 0
  return autocannon({
    url,
    connections: options.connections,
    ...(options.duration ? { duration: options.duration } : {}),
    ...(options.amount ? { amount: options.amount } : {}),
    requests: [
      {
        setupRequest: (_request, context) => {
          const chosen = requests[next++ % requests.length]!
          context.sent = chosen
          return {
            method: chosen.method,
            path: chosen.path,
            headers: chosen.headers ?? {},
            ...(chosen.body === undefined ? {} : { body: chosen.body }),
          }
        },
        onResponse: (status, _body, context) => (context.sent as AutocannonRequest).onResponse?.(status),
      },
    ],
    timeout: 30,
  })
}
