/**
 * The OpenAI stand-in of `npm run demo`: test/fakes/openai.ts (the real paths, shapes, key and model
 * checks) behind a front that passes every request to it and, in each chat completion it answers, puts
 * sample items made from the request's prompt, after a moment as a model would take.
 * The items are plainly samples (example.com addresses, descriptions that say so), named after what the
 * prompt asks for, so that a generation looks like one without pretending to be real data.
 */
import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { setTimeout as delay } from 'node:timers/promises'
import { DEFAULT_FAKE_API_KEY, startOpenAiFake } from '../test/fakes/openai.ts'

/** How long the stand-in "thinks" before it answers a chat completion. */
const ANSWER_DELAY_MS = 1500
const ITEM_COUNT = 8
const PREFIXES = [
  'Northwind',
  'Bluebird',
  'Copper Leaf',
  'Harbor Light',
  'Juniper',
  'Old Mill',
  'Meridian',
  'Red Fox',
]
const CATEGORIES = ['Popular', 'Worth a detour', 'New']
const TAGS = ['popular', 'independent', 'new', 'online', 'family-run', 'local', 'award-winning', 'budget']
const DESCRIPTIONS = [
  (topic: string) => `A sample entry for “${topic}”, made up by the demo’s stand-in of OpenAI.`,
  (topic: string) =>
    `How an entry for “${topic}” could read: invented for this demo, not a real place or product.`,
  (topic: string) => `Sample listing: with a real model, a real find for “${topic}” would be described here.`,
  (topic: string) =>
    `Invented by the OpenAI stand-in for “${topic}”; its name, link and tags are placeholders.`,
]
/** Words that name the directory rather than what it lists: a "Café Guide" lists cafés. */
const DIRECTORY_WORDS = new Set([
  'guide',
  'guides',
  'directory',
  'list',
  'finder',
  'map',
  'atlas',
  'index',
  'hub',
])
/** Words after which a prompt says where or which, not what: "roasters in Lisbon" is about roasters. */
const QUALIFIERS = /\s+(?:in|near|around|across|for|with|of|that|who|which|from|by|on)\s+/i

const asRecord = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined

const slug = (text: string) =>
  text
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')

const titleCase = (word: string) => word.charAt(0).toUpperCase() + word.slice(1)

/**
 * What the prompt asks for, from the platform's message: its `Instructions:` line, else the work's name
 * (`Directory:`), else the text itself; one line, at most 80 characters, no closing punctuation.
 */
export function topicOf(prompt: string): string {
  const line = (label: string) => new RegExp(`^${label}:\\s*(.+)$`, 'm').exec(prompt)?.[1]?.trim()
  const text = line('Instructions') ?? line('Directory') ?? prompt.trim().split('\n')[0] ?? ''
  return (
    text
      .replace(/\s+/g, ' ')
      .slice(0, 80)
      .replace(/[.!?,;:\s]+$/, '') || 'your directory'
  )
}

/** Sample items for the prompt: deterministic, varied, each named as a place or product of its kind. */
export function sampleItems(prompt: string, count = ITEM_COUNT) {
  const topic = topicOf(prompt)
  const [subject = topic, place] = topic.split(QUALIFIERS)
  const words = subject.trim().split(' ')
  while (words.length > 1 && DIRECTORY_WORDS.has(words.at(-1)!.toLowerCase())) words.pop()
  const last = words.at(-1) ?? ''
  const kind = DIRECTORY_WORDS.has(last.toLowerCase()) || !last ? 'Pick' : titleCase(last)
  const topicTag = slug(subject) || 'sample'
  const placeTag = place ? slug(place.split(' ').slice(0, 2).join(' ')) : ''
  return Array.from({ length: count }, (_, index) => {
    const prefix = PREFIXES[index % PREFIXES.length]!
    const name = index < PREFIXES.length ? `${prefix} ${kind}` : `${prefix} ${kind} ${index + 1}`
    const describe = DESCRIPTIONS[index % DESCRIPTIONS.length]!
    return {
      name,
      description: describe(topic),
      url: `https://example.com/${slug(name)}`,
      category: CATEGORIES[index % CATEGORIES.length]!,
      tags: [topicTag, ...(placeTag ? [placeTag] : []), TAGS[index % TAGS.length]!],
    }
  })
}

/** The text of the last user message, as the fake reads it. */
function promptOf(body: Record<string, unknown>): string {
  const messages = Array.isArray(body.messages) ? body.messages : []
  for (const message of [...messages].reverse().map(asRecord)) {
    if (message?.role !== 'user') continue
    if (typeof message.content === 'string') return message.content
    if (Array.isArray(message.content))
      return message.content
        .map((part) => asRecord(part)?.text)
        .filter((part): part is string => typeof part === 'string')
        .join(' ')
  }
  return ''
}

/** The response schema's first array property names the list in the answer (`items` without one). */
function listKeyOf(body: Record<string, unknown>): string {
  const schema = asRecord(asRecord(asRecord(body.response_format)?.json_schema)?.schema)
  const properties = asRecord(schema?.properties) ?? {}
  return Object.keys(properties).find((key) => asRecord(properties[key])?.type === 'array') ?? 'items'
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}

function parsed(body: Buffer): Record<string, unknown> | undefined {
  try {
    return asRecord(JSON.parse(body.toString('utf8')))
  } catch {
    return undefined
  }
}

/** The fake's completion with its message's content replaced by sample items for the request's prompt. */
function withSampleItems(completion: Record<string, unknown>, chat: Record<string, unknown>) {
  const [choice] = Array.isArray(completion.choices) ? completion.choices : []
  const message = asRecord(asRecord(choice)?.message)
  if (!message || typeof message.content !== 'string') return completion
  message.content = JSON.stringify({ [listKeyOf(chat)]: sampleItems(promptOf(chat)) })
  return completion
}

export async function startDemoOpenAi() {
  const fake = await startOpenAiFake()
  const upstream = new URL(fake.url).origin

  const server = createServer(async (req, res) => {
    const body = await readBody(req)
    const path = new URL(req.url ?? '/', 'http://front').pathname
    const chat = req.method === 'POST' && path === '/v1/chat/completions' ? parsed(body) : undefined
    if (chat) await delay(ANSWER_DELAY_MS)
    // The fake checks the key, the model and the request, and answers; a completion gets sample items.
    const answer = await fetch(`${upstream}${req.url ?? '/'}`, {
      method: req.method ?? 'GET',
      headers: Object.fromEntries(
        Object.entries(req.headers).flatMap(([name, value]) =>
          typeof value === 'string' && name !== 'host' && name !== 'content-length' ? [[name, value]] : [],
        ),
      ),
      ...(body.length > 0 ? { body } : {}),
    })
    const headers = Object.fromEntries(
      [...answer.headers].filter(([name]) => name !== 'content-length' && name !== 'content-encoding'),
    )
    if (chat && answer.status === 200) {
      const completion = withSampleItems((await answer.json()) as Record<string, unknown>, chat)
      res.writeHead(200, headers).end(JSON.stringify(completion))
      return
    }
    res.writeHead(answer.status, headers).end(Buffer.from(await answer.arrayBuffer()))
  })
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done))
  return {
    /** The base URL the platform is given (ends in `/v1`). */
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    apiKey: DEFAULT_FAKE_API_KEY,
    async close() {
      await new Promise<void>((done) => {
        server.close(() => done())
        server.closeAllConnections()
      })
      await fake.close()
    },
  }
}
