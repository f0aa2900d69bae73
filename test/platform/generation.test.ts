import assert from 'node:assert/strict'
import { type AddressInfo, createServer } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { and, eq } from 'drizzle-orm'
import { activityLog } from '../../src/platform/activity-log/tables.ts'
import { MAX_RUN_ATTEMPTS } from '../../src/platform/generation/service.ts'
import { workGenerations } from '../../src/platform/generation/tables.ts'
import { startOpenAiFake } from '../fakes/openai.ts'
import { type PlatformHarness, startPlatform } from '../helpers/apps.ts'
import {
  type Account,
  call,
  createWork,
  enablePlugin,
  eventually,
  register,
  share,
} from '../helpers/platform.ts'

const MAX_ITEMS = 100
const STALE_MS = 60_000

let fake: Awaited<ReturnType<typeof startOpenAiFake>>
let h: PlatformHarness

before(async () => {
  fake = await startOpenAiFake()
  h = await startPlatform({
    env: {
      OPENAI_API_URL: fake.url,
      AI_PROVIDER_MAX_RETRIES: '0',
      AI_PROVIDER_TIMEOUT_MS: '30000',
      GENERATION_MAX_ITEMS: String(MAX_ITEMS),
      GENERATION_STALE_MS: String(STALE_MS),
      // One worker: while it is stuck on a held answer, a run queued again can only go to another instance.
      GENERATION_CONCURRENCY: '1',
    },
  })
})
after(async () => {
  await h.close()
  await fake.close()
})

interface Work {
  id: string
  name: string
  generateStatus: { status: string; itemsCount: number; recentLogs: string[] }
}

/** An account with the openai plugin enabled (new works get it as their AI provider) and one such work. */
async function ready(name = 'Coffee roasters') {
  const owner = await register(h, 'gen')
  await enablePlugin(h, owner, 'openai', { secretSettings: { apiKey: fake.apiKey } })
  const work = await createWork(h, owner, name)
  return { owner, work }
}

const generate = (account: Account, workId: string, payload: object = {}) =>
  call(h, account, 'POST', `/api/works/${workId}/generate`, payload)

const readWork = async (account: Account, workId: string): Promise<Work> => {
  const res = await call(h, account, 'GET', `/api/works/${workId}`)
  assert.equal(res.statusCode, 200, res.body)
  return res.json()
}

const FINISHED = ['COMPLETED', 'ERROR', 'CANCELLED']
const finished = (account: Account, workId: string) =>
  eventually(
    () => readWork(account, workId),
    (work) => FINISHED.includes(work.generateStatus.status),
  )

const items = async (account: Account, workId: string) => {
  const res = await call(h, account, 'GET', `/api/works/${workId}/items`)
  assert.equal(res.statusCode, 200, res.body)
  return res.json().items as { id: string; name: string; url: string | null; tags: string[] }[]
}

const generationRows = (account: Account, workId: string) =>
  h.databases.platform.db
    .select()
    .from(activityLog)
    .where(
      and(
        eq(activityLog.userId, account.userId),
        eq(activityLog.workId, workId),
        eq(activityLog.actionType, 'generation'),
      ),
    )

async function notifications(account: Account) {
  const res = await call(h, account, 'GET', '/api/notifications')
  assert.equal(res.statusCode, 200, res.body)
  return res.json().notifications as {
    category: string
    isPersistent: boolean
    message: string
    title: string
  }[]
}

describe('generation: happy path', () => {
  it('generate answers 202 GENERATING, runs as a job, and stores the provider’s items', async () => {
    const { owner, work } = await ready()
    const res = await generate(owner, work.id, { prompt: 'Roasters with an online shop' })
    assert.equal(res.statusCode, 202, res.body)
    assert.deepEqual(res.json(), { status: 'GENERATING' })
    assert.ok(['PENDING', 'GENERATING'].includes((await readWork(owner, work.id)).generateStatus.status))

    const done = await finished(owner, work.id)
    assert.equal(done.generateStatus.status, 'COMPLETED')
    assert.equal(done.generateStatus.itemsCount, 5)
    assert.ok(done.generateStatus.recentLogs.some((line) => line.includes('Received 5 items')))
    const stored = await items(owner, work.id)
    assert.equal(stored.length, 5)
    assert.equal(stored[0]!.url, 'https://example.com/item-1')
    assert.ok(stored[0]!.tags.length > 0)
    assert.deepEqual(Object.keys(stored[0]!).sort(), [
      'category',
      'createdAt',
      'description',
      'id',
      'name',
      'tags',
      'url',
    ])
  })

  it('asks the work’s model with a JSON-schema response format, the prompt and the API key', async () => {
    const { owner, work } = await ready('Lisbon cafés')
    const before = fake.chatRequests.length
    await generate(owner, work.id, { prompt: 'Only places with wifi' })
    await finished(owner, work.id)
    const request = fake.chatRequests[before]!
    const body = request.body as {
      model: string
      messages: { role: string; content: string }[]
      response_format: { type: string; json_schema: { name: string; strict: boolean } }
    }
    assert.equal(body.model, 'gpt-4o-mini')
    assert.equal(body.response_format.type, 'json_schema')
    assert.equal(body.response_format.json_schema.name, 'directory_items')
    assert.equal(body.response_format.json_schema.strict, true)
    const user = body.messages.find((message) => message.role === 'user')!.content
    assert.match(user, /Lisbon cafés/)
    assert.match(user, /Only places with wifi/)
    assert.equal(request.headers.authorization, `Bearer ${fake.apiKey}`)
  })

  it('a second generation replaces the items of the first', async () => {
    const { owner, work } = await ready()
    fake.next({ items: 3 })
    await generate(owner, work.id)
    await finished(owner, work.id)
    assert.equal((await items(owner, work.id)).length, 3)
    fake.next({ items: 7 })
    assert.equal((await generate(owner, work.id)).statusCode, 202)
    const done = await finished(owner, work.id)
    assert.equal(done.generateStatus.itemsCount, 7)
    assert.equal((await items(owner, work.id)).length, 7)
  })

  it('the activity row opened in_progress is closed in place, with the run’s log as liveLogs', async () => {
    const { owner, work } = await ready()
    await generate(owner, work.id)
    await finished(owner, work.id)
    const rows = await generationRows(owner, work.id)
    assert.equal(rows.length, 1, 'one row for the run, updated in place')
    assert.equal(rows[0]!.status, 'completed')
    assert.equal(rows[0]!.action, 'generation.completed')
    assert.equal((rows[0]!.details as { itemsCount: number }).itemsCount, 5)
    const entry = await call(h, owner, 'GET', `/api/activity-log/${rows[0]!.id}`)
    assert.equal(entry.statusCode, 200, entry.body)
    assert.ok(entry.json().details.liveLogs.some((line: string) => line.includes('Stored 5 items')))
  })

  it('while the run is in progress its activity entry shows the live log lines', async () => {
    const { owner, work } = await ready()
    fake.next({ hang: true })
    const arrived = fake.waitForRequest()
    await generate(owner, work.id)
    await arrived
    const [row] = await generationRows(owner, work.id)
    assert.equal(row!.status, 'in_progress')
    const entry = await call(h, owner, 'GET', `/api/activity-log/${row!.id}`)
    assert.ok(entry.json().details.liveLogs.some((line: string) => line.includes('Asking OpenAI')))
    fake.release()
    await finished(owner, work.id)
  })

  it('an editor may generate; a viewer may read the items but not generate', async () => {
    const { owner, work } = await ready()
    const editor = await register(h, 'editor')
    const viewer = await register(h, 'viewer')
    await share(h, owner, work.id, editor, 'editor')
    await share(h, owner, work.id, viewer, 'viewer')
    const refused = await generate(viewer, work.id)
    assert.equal(refused.statusCode, 403)
    assert.equal(refused.json().code, 'WORK_EDIT_FORBIDDEN')
    assert.equal((await generate(editor, work.id)).statusCode, 202)
    await finished(owner, work.id)
    assert.equal((await items(viewer, work.id)).length, 5)
  })

  it('more items than GENERATION_MAX_ITEMS are cut to that many, and the log says so', async () => {
    const { owner, work } = await ready()
    fake.next({ items: MAX_ITEMS * 3 })
    await generate(owner, work.id)
    const done = await finished(owner, work.id)
    assert.equal(done.generateStatus.status, 'COMPLETED')
    assert.equal(done.generateStatus.itemsCount, MAX_ITEMS)
    assert.ok(done.generateStatus.recentLogs.some((line) => line.includes(`${MAX_ITEMS * 2} more cut`)))
    assert.equal((await items(owner, work.id)).length, MAX_ITEMS)
  })

  it('an invalid answer is asked again once, and a good second answer completes', async () => {
    const { owner, work } = await ready()
    const before = fake.chatRequests.length
    fake.next({ content: '{"items": [{"name": "Cut off' }, { items: 4 })
    await generate(owner, work.id)
    const done = await finished(owner, work.id)
    assert.equal(done.generateStatus.status, 'COMPLETED')
    assert.equal(done.generateStatus.itemsCount, 4)
    assert.equal(fake.chatRequests.length - before, 2)
    assert.ok(done.generateStatus.recentLogs.some((line) => line.includes('not usable')))
  })
})

describe('generation: errors', () => {
  it('a second generate while one runs is 409 GENERATION_RUNNING', async () => {
    const { owner, work } = await ready()
    fake.next({ hang: true })
    const arrived = fake.waitForRequest()
    assert.equal((await generate(owner, work.id)).statusCode, 202)
    await arrived
    const again = await generate(owner, work.id)
    assert.equal(again.statusCode, 409)
    assert.equal(again.json().code, 'GENERATION_RUNNING')
    fake.release()
    assert.equal((await finished(owner, work.id)).generateStatus.status, 'COMPLETED')
  })

  it('concurrent generates: exactly one 202, the others 409, one run', async () => {
    const { owner, work } = await ready()
    const answers = await Promise.all(Array.from({ length: 8 }, () => generate(owner, work.id)))
    const statuses = answers.map((res) => res.statusCode).sort()
    assert.deepEqual(statuses, [202, 409, 409, 409, 409, 409, 409, 409])
    await finished(owner, work.id)
    const runs = await h.databases.platform.db
      .select()
      .from(workGenerations)
      .where(eq(workGenerations.workId, work.id))
    assert.equal(runs.length, 1)
  })

  it('cancel stops a running generation: CANCELLED, nothing stored, the row closed as cancelled', async () => {
    const { owner, work } = await ready()
    fake.next({ items: 2 })
    await generate(owner, work.id)
    await finished(owner, work.id)
    fake.next({ hang: true })
    const arrived = fake.waitForRequest()
    await generate(owner, work.id)
    await arrived
    const res = await call(h, owner, 'POST', `/api/works/${work.id}/generate/cancel`)
    assert.equal(res.statusCode, 200, res.body)
    assert.deepEqual(res.json(), { status: 'CANCELLED' })
    fake.release()
    const done = await readWork(owner, work.id)
    assert.equal(done.generateStatus.status, 'CANCELLED')
    // The worker finds the run cancelled and stores nothing: the previous items stay.
    const [run] = await h.databases.platform.db
      .select()
      .from(workGenerations)
      .where(and(eq(workGenerations.workId, work.id), eq(workGenerations.status, 'CANCELLED')))
    assert.ok(run)
    assert.equal((await items(owner, work.id)).length, 2)
    const rows = await generationRows(owner, work.id)
    assert.deepEqual(rows.map((row) => row.status).sort(), ['cancelled', 'completed'])
  })

  it('cancel when nothing runs is 409 GENERATION_NOT_RUNNING', async () => {
    const { owner, work } = await ready()
    const res = await call(h, owner, 'POST', `/api/works/${work.id}/generate/cancel`)
    assert.equal(res.statusCode, 409)
    assert.equal(res.json().code, 'GENERATION_NOT_RUNNING')
  })

  it('a work without an active AI provider is 400 NO_AI_PROVIDER', async () => {
    const owner = await register(h, 'gen')
    const work = await createWork(h, owner)
    const res = await generate(owner, work.id)
    assert.equal(res.statusCode, 400)
    assert.equal(res.json().code, 'NO_AI_PROVIDER')
    assert.equal((await readWork(owner, work.id)).generateStatus.status, 'IDLE')
  })

  it('an AI provider without its API key is 400 PLUGIN_NOT_CONFIGURED', async () => {
    const owner = await register(h, 'gen')
    await enablePlugin(h, owner, 'openai')
    const work = await createWork(h, owner)
    const res = await generate(owner, work.id)
    assert.equal(res.statusCode, 400)
    assert.equal(res.json().code, 'PLUGIN_NOT_CONFIGURED')
  })

  it('another account’s work is 404 on generate, cancel and items', async () => {
    const { work } = await ready()
    const stranger = await register(h, 'stranger')
    for (const [method, url] of [
      ['POST', `/api/works/${work.id}/generate`],
      ['POST', `/api/works/${work.id}/generate/cancel`],
      ['GET', `/api/works/${work.id}/items`],
    ] as const) {
      const res = await call(h, stranger, method, url, method === 'POST' ? {} : undefined)
      assert.equal(res.statusCode, 404, `${method} ${url}`)
      assert.equal(res.json().code, 'WORK_NOT_FOUND')
    }
  })

  it('a prompt over 4000 characters is 400 naming body.prompt', async () => {
    const { owner, work } = await ready()
    const res = await generate(owner, work.id, { prompt: 'x'.repeat(4001) })
    assert.equal(res.statusCode, 400)
    assert.equal(res.json().details[0].field, 'body.prompt')
  })
})

describe('generation: provider failures end as ERROR with the reason, never stuck', () => {
  const failures: [string, Parameters<typeof fake.next>[0], RegExp][] = [
    [
      'an HTML page',
      { raw: { status: 200, contentType: 'text/html', body: '<html>Gateway</html>' } },
      /text\/html/,
    ],
    ['cut-off JSON', { content: '{"items": [{"name": "A", "descr' }, /cut-off or malformed JSON/],
    ['an empty list', { empty: true }, /lists no items/],
    ['items without names', { itemsJson: { items: [{ description: 'x' }, { name: '' }] } }, /has a name/],
  ]
  for (const [what, behaviour, reason] of failures) {
    it(`${what}, twice → ERROR with the reason`, async () => {
      const { owner, work } = await ready()
      fake.next(behaviour, behaviour)
      await generate(owner, work.id)
      const done = await finished(owner, work.id)
      assert.equal(done.generateStatus.status, 'ERROR')
      assert.ok(
        done.generateStatus.recentLogs.some((line) => reason.test(line)),
        JSON.stringify(done),
      )
      assert.equal((await generationRows(owner, work.id))[0]!.status, 'failed')
    })
  }

  it('401 → ERROR with a clear log line and a generation notification, never the key', async () => {
    const { owner, work } = await ready()
    fake.next({
      status: 401,
      error: { message: `Incorrect API key provided: ${fake.apiKey}`, code: 'invalid_api_key' },
    })
    await generate(owner, work.id)
    const done = await finished(owner, work.id)
    assert.equal(done.generateStatus.status, 'ERROR')
    const logs = done.generateStatus.recentLogs.join('\n')
    assert.match(logs, /rejected the (API key|credentials)/)
    assert.ok(!logs.includes(fake.apiKey))
    const [note] = await notifications(owner)
    assert.equal(note?.category, 'generation')
    assert.ok(!JSON.stringify(await notifications(owner)).includes(fake.apiKey))
  })

  it('402 → ERROR and a persistent ai_credits notification; a later success clears it', async () => {
    const { owner, work } = await ready()
    fake.next({ status: 402, error: { message: 'You have run out of credits' } })
    await generate(owner, work.id)
    assert.equal((await finished(owner, work.id)).generateStatus.status, 'ERROR')
    const [note] = await notifications(owner)
    assert.equal(note?.category, 'ai_credits')
    assert.equal(note?.isPersistent, true)

    await generate(owner, work.id)
    assert.equal((await finished(owner, work.id)).generateStatus.status, 'COMPLETED')
    assert.deepEqual(await notifications(owner), [])
  })

  it('a 429 insufficient_quota is a credits failure too', async () => {
    const { owner, work } = await ready()
    fake.next({
      status: 429,
      error: {
        message: 'You exceeded your current quota',
        code: 'insufficient_quota',
        type: 'insufficient_quota',
      },
    })
    await generate(owner, work.id)
    assert.equal((await finished(owner, work.id)).generateStatus.status, 'ERROR')
    assert.equal((await notifications(owner))[0]?.category, 'ai_credits')
  })

  it('500 → ERROR and a (not persistent) AI provider error notification', async () => {
    const { owner, work } = await ready()
    fake.next({ status: 500, error: { message: 'The server had an error' } })
    await generate(owner, work.id)
    const done = await finished(owner, work.id)
    assert.equal(done.generateStatus.status, 'ERROR')
    assert.ok(done.generateStatus.recentLogs.some((line) => line.includes('500')))
    const [note] = await notifications(owner)
    assert.equal(note?.category, 'ai_credits')
    assert.equal(note?.isPersistent, false)
  })
})

describe('generation: a provider that cannot be reached', () => {
  it('ends as ERROR naming the refused connection, with a generation notification, never ai_credits', async () => {
    const closed = createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
    const { port } = closed.address() as AddressInfo
    await new Promise((resolve) => closed.close(resolve))
    const owner = await register(h, 'gen')
    await enablePlugin(h, owner, 'openai', {
      settings: { baseUrl: `http://127.0.0.1:${port}/v1` },
      secretSettings: { apiKey: fake.apiKey },
    })
    const work = await createWork(h, owner, 'Unreachable provider')
    await generate(owner, work.id)
    const done = await finished(owner, work.id)
    assert.equal(done.generateStatus.status, 'ERROR')
    const cause = `connect ECONNREFUSED 127.0.0.1:${port}`
    assert.ok(
      done.generateStatus.recentLogs.some((line) =>
        line.endsWith(`Failed: The AI provider could not be reached: Could not reach the provider: ${cause}`),
      ),
      done.generateStatus.recentLogs.join('\n'),
    )
    const notes = await notifications(owner)
    assert.deepEqual(
      notes.map(({ category, title, message, isPersistent }) => ({ category, title, message, isPersistent })),
      [
        {
          category: 'generation',
          title: 'OpenAI could not be reached',
          message:
            `Generation failed: could not reach the provider: ${cause}. ` +
            'Check OpenAI’s address (its base URL) and this server’s network, then generate again.',
          isPersistent: false,
        },
      ],
    )

    // Reached again: the run completes and the notification is resolved.
    await enablePlugin(h, owner, 'openai', {
      settings: { baseUrl: fake.url },
      secretSettings: { apiKey: fake.apiKey },
    })
    await generate(owner, work.id)
    assert.equal((await finished(owner, work.id)).generateStatus.status, 'COMPLETED')
    assert.deepEqual(await notifications(owner), [])
  })
})

describe('generation: a run whose worker died', () => {
  // The first instance's worker stays stuck on the provider (a process that died, as far as the run can
  // tell); a second instance on the same database, its clock past the stale limit, takes the run over.
  // It starts once the first has taken the run, so the run is surely the first's.
  async function takeOver() {
    const other = await startPlatform({
      databases: h.databases,
      env: {
        OPENAI_API_URL: fake.url,
        AI_PROVIDER_MAX_RETRIES: '0',
        GENERATION_MAX_ITEMS: String(MAX_ITEMS),
        GENERATION_STALE_MS: String(STALE_MS),
      },
    })
    other.clock.advance(STALE_MS + 1000)
    return other
  }

  it('a silent run is queued again by the recovery pass and resumed to COMPLETED', async () => {
    const { owner, work } = await ready()
    fake.next({ hang: true })
    const arrived = fake.waitForRequest()
    await generate(owner, work.id)
    await arrived
    // The worker "dies": its heartbeat stops being fresh once the clock passes the stale limit.
    const [run] = await h.databases.platform.db
      .select()
      .from(workGenerations)
      .where(and(eq(workGenerations.workId, work.id), eq(workGenerations.status, 'GENERATING')))
    assert.ok(run)
    const other = await takeOver()
    try {
      assert.equal(await other.services.generation.recover(), 1)
      const done = await finished(owner, work.id)
      assert.equal(done.generateStatus.status, 'COMPLETED', done.generateStatus.recentLogs.join('\n'))
      assert.ok(done.generateStatus.recentLogs.some((line) => line.includes('Resuming')))
    } finally {
      fake.release()
      await other.close()
    }
    const [resumed] = await h.databases.platform.db
      .select()
      .from(workGenerations)
      .where(eq(workGenerations.id, run.id))
    assert.equal(resumed!.attempts, 2)
    assert.equal((await generationRows(owner, work.id)).length, 1)
  })

  it(`a run interrupted ${MAX_RUN_ATTEMPTS} times ends as ERROR with the reason, and its row is closed`, async () => {
    const { owner, work } = await ready()
    fake.next({ hang: true })
    const arrived = fake.waitForRequest()
    await generate(owner, work.id)
    await arrived
    await h.databases.platform.db
      .update(workGenerations)
      .set({ attempts: MAX_RUN_ATTEMPTS })
      .where(eq(workGenerations.workId, work.id))
    const other = await takeOver()
    try {
      await other.services.generation.recover()
      const done = await finished(owner, work.id)
      assert.equal(done.generateStatus.status, 'ERROR')
      assert.ok(done.generateStatus.recentLogs.some((line) => line.includes('interrupted')))
    } finally {
      fake.release()
      await other.close()
    }
    assert.equal((await generationRows(owner, work.id))[0]!.status, 'failed')
  })

  it('a live run is not taken by the recovery pass', async () => {
    const { owner, work } = await ready()
    fake.next({ hang: true })
    const arrived = fake.waitForRequest()
    await generate(owner, work.id)
    await arrived
    assert.equal(await h.services.generation.recover(), 0)
    fake.release()
    assert.equal((await finished(owner, work.id)).generateStatus.status, 'COMPLETED')
  })
})

describe('generation: a provider that does not answer in time', () => {
  it('ends as ERROR with the reason after AI_PROVIDER_TIMEOUT_MS', async () => {
    const quick = await startPlatform({
      env: { OPENAI_API_URL: fake.url, AI_PROVIDER_MAX_RETRIES: '0', AI_PROVIDER_TIMEOUT_MS: '300' },
    })
    try {
      const owner = await register(quick, 'gen')
      await enablePlugin(quick, owner, 'openai', { secretSettings: { apiKey: fake.apiKey } })
      const work = await createWork(quick, owner)
      fake.next({ hang: true })
      assert.equal((await call(quick, owner, 'POST', `/api/works/${work.id}/generate`, {})).statusCode, 202)
      const done = await eventually(
        async () => (await call(quick, owner, 'GET', `/api/works/${work.id}`)).json() as Work,
        (current) => FINISHED.includes(current.generateStatus.status),
      )
      assert.equal(done.generateStatus.status, 'ERROR')
      assert.ok(done.generateStatus.recentLogs.some((line) => line.includes('did not answer within 300 ms')))
      const [note] = (await call(quick, owner, 'GET', '/api/notifications')).json().notifications
      assert.equal(note.category, 'generation', 'no answer in time is not a credits problem')
      assert.match(note.message, /^Generation failed: the provider did not answer within 300 ms\./)
    } finally {
      fake.release()
      await quick.close()
    }
  })
})

describe('generation: several works at once', () => {
  it('one instance runs GENERATION_CONCURRENCY generations side by side', async () => {
    const wide = await startPlatform({
      env: { OPENAI_API_URL: fake.url, AI_PROVIDER_MAX_RETRIES: '0', GENERATION_CONCURRENCY: '3' },
    })
    try {
      const owner = await register(wide, 'gen')
      await enablePlugin(wide, owner, 'openai', { secretSettings: { apiKey: fake.apiKey } })
      const works = [await createWork(wide, owner, 'One'), await createWork(wide, owner, 'Two')]
      fake.next({ hang: true }, { hang: true })
      for (const work of works) {
        assert.equal((await call(wide, owner, 'POST', `/api/works/${work.id}/generate`, {})).statusCode, 202)
      }
      // Both runs wait on the provider at the same time: neither queues behind the other.
      await eventually(
        async () => fake.held,
        (held) => held === 2,
      )
      fake.release()
      for (const work of works) {
        const done = await eventually(
          async () => (await call(wide, owner, 'GET', `/api/works/${work.id}`)).json() as Work,
          (current) => FINISHED.includes(current.generateStatus.status),
        )
        assert.equal(done.generateStatus.status, 'COMPLETED')
      }
    } finally {
      fake.release()
      await wide.close()
    }
  })
})

describe('generation: a production instance reaches public provider addresses only', () => {
  const production = (extra: Record<string, string> = {}) =>
    startPlatform({
      env: {
        NODE_ENV: 'production',
        JWT_SECRET: 'a-production-secret-of-at-least-32-characters',
        PLATFORM_ENCRYPTION_KEY: 'ab'.repeat(32),
        AI_PROVIDER_MAX_RETRIES: '0',
        ...extra,
      },
    })

  it('a user’s baseUrl at a private address: models 400 PROVIDER_ADDRESS_BLOCKED, generation ERROR', async () => {
    const strict = await production()
    try {
      const owner = await register(strict, 'ssrf')
      await enablePlugin(strict, owner, 'openai', {
        settings: { baseUrl: fake.url },
        secretSettings: { apiKey: fake.apiKey },
      })
      const before = fake.requests.length
      const models = await call(strict, owner, 'GET', '/api/plugins/openai/models')
      assert.equal(models.statusCode, 400, models.body)
      assert.equal(models.json().code, 'PROVIDER_ADDRESS_BLOCKED')
      assert.match(models.json().message, /127\.0\.0\.1 is a loopback address/)

      const work = await createWork(strict, owner)
      assert.equal((await call(strict, owner, 'POST', `/api/works/${work.id}/generate`, {})).statusCode, 202)
      const done = await eventually(
        async () => (await call(strict, owner, 'GET', `/api/works/${work.id}`)).json() as Work,
        (current) => FINISHED.includes(current.generateStatus.status),
      )
      assert.equal(done.generateStatus.status, 'ERROR')
      assert.ok(done.generateStatus.recentLogs.some((line) => line.includes('not allowed')))
      assert.equal(fake.requests.length, before, 'nothing reached the private address')
    } finally {
      await strict.close()
    }
  })

  it('the operator’s OPENAI_API_URL and AI_PROVIDER_ALLOWED_HOSTS are reached', async () => {
    const settings: Record<string, string>[] = [
      { OPENAI_API_URL: fake.url },
      { AI_PROVIDER_ALLOWED_HOSTS: '127.0.0.0/8' },
    ]
    for (const env of settings) {
      const allowed = await production(env)
      try {
        const owner = await register(allowed, 'ssrf')
        await enablePlugin(allowed, owner, 'openai', {
          settings: { baseUrl: fake.url },
          secretSettings: { apiKey: fake.apiKey },
        })
        const models = await call(allowed, owner, 'GET', '/api/plugins/openai/models')
        assert.equal(models.statusCode, 200, `${JSON.stringify(env)}: ${models.body}`)
      } finally {
        await allowed.close()
      }
    }
  })
})
