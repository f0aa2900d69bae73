import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { after, before, describe, it } from 'node:test'
import { and, eq } from 'drizzle-orm'
import type { LightMyRequestResponse } from 'fastify'
import { createLogger } from '../../src/lib/logger.ts'
import { userPlugins, workPlugins } from '../../src/platform/plugins/tables.ts'
import { type OpenAiFake, startOpenAiFake } from '../fakes/openai.ts'
import { type PlatformHarness, startPlatform } from '../helpers/apps.ts'
import { race } from '../helpers/database.ts'
import { type Account, call, createWork, enablePlugin, register, share } from '../helpers/platform.ts'

let fake: OpenAiFake
/** Points `openai` at the fake through OPENAI_API_URL; no OPENAI_API_KEY. */
let h: PlatformHarness
/** A second instance on the same database whose server supplies OPENAI_API_KEY (the fake's key), no URL. */
let withEnvKey: PlatformHarness

const PROVIDER_LIMITS = { AI_PROVIDER_MAX_RETRIES: '0', AI_PROVIDER_TIMEOUT_MS: '1000' }

before(async () => {
  fake = await startOpenAiFake()
  h = await startPlatform({ env: { OPENAI_API_URL: fake.url, ...PROVIDER_LIMITS } })
  withEnvKey = await startPlatform({
    databases: h.databases,
    env: { OPENAI_API_KEY: fake.apiKey, ...PROVIDER_LIMITS },
  })
})
after(async () => {
  await withEnvKey.close()
  await h.close()
  await fake.close()
})

const MASK = '••••'
const MISSING_ID = '00000000-0000-4000-8000-000000000000'
const OPENAI_README = readFileSync(
  new URL('../../src/platform/plugins/openai/README.md', import.meta.url),
  'utf8',
)

/** A secret no other test uses, long enough to be shown by its last 4 characters. */
const newSecret = (prefix = 'sk-proj') => `${prefix}-${randomBytes(16).toString('hex')}`

function assertError(res: LightMyRequestResponse, status: number, code: string) {
  assert.equal(res.statusCode, status, res.body)
  assert.equal(res.json().code, code, res.body)
}

const account = (harness = h) => register(harness, 'plugins')

const userRow = async (userId: string, pluginId: string) => {
  const [row] = await h.databases.platform.db
    .select()
    .from(userPlugins)
    .where(and(eq(userPlugins.userId, userId), eq(userPlugins.pluginId, pluginId)))
  return row
}

const workRows = (workId: string) =>
  h.databases.platform.db.select().from(workPlugins).where(eq(workPlugins.workId, workId))

async function workPlugin(who: Account, workId: string, pluginId: string) {
  const res = await call(h, who, 'GET', `/api/works/${workId}/plugins`)
  assert.equal(res.statusCode, 200, res.body)
  const entry = res.json().plugins.find((plugin: { id: string }) => plugin.id === pluginId)
  assert.ok(entry, `${pluginId} is listed`)
  return entry as { enabled: boolean; activeCapability: string | null; priority: number; settings: object }
}

/** An account with `openai` enabled against the fake, with the fake's key. */
async function openAiUser(body: object = {}) {
  const me = await account()
  await enablePlugin(h, me, 'openai', { secretSettings: { apiKey: fake.apiKey }, ...body })
  return me
}

async function activities(who: Account, harness = h) {
  const res = await call(harness, who, 'GET', '/api/activity-log?limit=100')
  assert.equal(res.statusCode, 200, res.body)
  return res.json().activities as { action: string; details: Record<string, unknown>; summary: string }[]
}

const OPENAI_ENTRY = {
  id: 'openai',
  name: 'OpenAI',
  version: '1.0.0',
  description: 'Generates a work’s items with OpenAI or any OpenAI-compatible chat completions API.',
  category: 'ai-provider',
  capabilities: ['ai-provider'],
  icon: { type: 'emoji', value: '🤖' },
  enabled: false,
  configured: false,
  autoEnable: true,
  systemPlugin: false,
  builtIn: true,
}
const VERCEL_ENTRY = {
  id: 'vercel',
  name: 'Vercel',
  version: '1.0.0',
  description: 'Hosts each work’s website on Vercel, deployed from its GitHub repository.',
  category: 'deployment',
  capabilities: ['deploy'],
  icon: { type: 'emoji', value: '▲' },
  enabled: false,
  configured: false,
  autoEnable: false,
  systemPlugin: true,
  builtIn: true,
}
const GITHUB_ENTRY = {
  id: 'github',
  name: 'GitHub',
  version: '1.0.0',
  description: 'Keeps each work’s website in a GitHub repository and runs its deploy workflows.',
  category: 'git',
  capabilities: ['git-host'],
  icon: { type: 'emoji', value: '🐙' },
  enabled: false,
  configured: false,
  autoEnable: false,
  systemPlugin: true,
  builtIn: true,
}

describe('platform plugins: list and details', () => {
  it('a new account sees the three shipped plugins, by category, none enabled or configured', async () => {
    const me = await account()
    const res = await call(h, me, 'GET', '/api/plugins')
    assert.equal(res.statusCode, 200, res.body)
    assert.deepEqual(res.json(), { plugins: [OPENAI_ENTRY, VERCEL_ENTRY, GITHUB_ENTRY] })
  })

  it('?category keeps only that category’s plugins; an unknown category lists none', async () => {
    const me = await account()
    const ai = await call(h, me, 'GET', '/api/plugins?category=ai-provider')
    assert.equal(ai.statusCode, 200, ai.body)
    assert.deepEqual(ai.json(), { plugins: [OPENAI_ENTRY] })
    const git = await call(h, me, 'GET', '/api/plugins?category=git')
    assert.deepEqual(
      git.json().plugins.map((plugin: { id: string }) => plugin.id),
      ['github'],
    )
    const none = await call(h, me, 'GET', '/api/plugins?category=search')
    assert.equal(none.statusCode, 200, none.body)
    assert.deepEqual(none.json(), { plugins: [] })
  })

  it('the server’s environment variable alone makes a plugin configured, not enabled', async () => {
    const me = await account(withEnvKey)
    const res = await call(withEnvKey, me, 'GET', '/api/plugins')
    const byId = new Map(res.json().plugins.map((plugin: { id: string }) => [plugin.id, plugin]))
    assert.deepEqual(byId.get('openai'), { ...OPENAI_ENTRY, configured: true })
    assert.deepEqual(byId.get('github'), GITHUB_ENTRY, 'GITHUB_TOKEN is not set on that server')
    assert.equal(await userRow(me.userId, 'openai'), undefined, 'no user setting was made')
    // The instance without OPENAI_API_KEY sees the same account unconfigured.
    const elsewhere = await call(h, me, 'GET', '/api/plugins?category=ai-provider')
    assert.equal(elsewhere.json().plugins[0].configured, false)
  })

  it('details carry the settings schema with titles and annotations, the readme and no settings yet', async () => {
    const me = await account()
    const res = await call(h, me, 'GET', '/api/plugins/openai')
    assert.equal(res.statusCode, 200, res.body)
    const details = res.json()
    const { settingsSchema, readme, settings, autoEnableForWorks, metadata, ...entry } = details
    assert.deepEqual(entry, OPENAI_ENTRY)
    assert.equal(settingsSchema.type, 'object')
    assert.deepEqual(Object.keys(settingsSchema.properties).sort(), ['apiKey', 'baseUrl', 'model'])
    assert.deepEqual(settingsSchema.required, ['apiKey'])
    for (const property of Object.values(settingsSchema.properties) as { title: string }[]) {
      assert.ok(property.title.length > 0)
    }
    assert.equal(settingsSchema.properties.apiKey['x-secret'], true)
    assert.equal(settingsSchema.properties.apiKey['x-envVar'], 'OPENAI_API_KEY')
    assert.equal(settingsSchema.properties.apiKey.default, undefined)
    assert.equal(settingsSchema.properties.baseUrl['x-envVar'], 'OPENAI_API_URL')
    assert.equal(settingsSchema.properties.baseUrl.default, 'https://api.openai.com/v1')
    assert.equal(settingsSchema.properties.baseUrl['x-secret'], undefined)
    assert.equal(settingsSchema.properties.model.default, 'gpt-4o-mini')
    assert.equal(readme, OPENAI_README)
    assert.match(readme, /^# OpenAI\n/)
    assert.deepEqual(settings, {})
    assert.equal(autoEnableForWorks, true, 'the plugin’s autoEnable until the user says otherwise')
    assert.deepEqual(metadata, {})

    const github = (await call(h, me, 'GET', '/api/plugins/github')).json()
    assert.deepEqual(Object.keys(github.settingsSchema.properties).sort(), ['owner', 'token'])
    assert.equal(github.settingsSchema.properties.token['x-envVar'], 'GITHUB_TOKEN')
    assert.equal(github.settingsSchema.properties.token['x-secret'], true)
    assert.match(github.readme, /^# GitHub/)
    assert.equal(github.autoEnableForWorks, false)
    const vercel = (await call(h, me, 'GET', '/api/plugins/vercel')).json()
    assert.deepEqual(Object.keys(vercel.settingsSchema.properties).sort(), ['teamScope', 'token'])
    assert.equal(vercel.settingsSchema.properties.token['x-envVar'], 'VERCEL_TOKEN')
  })

  it('an unknown plugin is 404 PLUGIN_NOT_FOUND on every plugin route', async () => {
    const me = await account()
    const work = await createWork(h, me)
    const routes: [string, string, object?][] = [
      ['GET', '/api/plugins/nope'],
      ['GET', '/api/plugins/nope/models'],
      ['POST', '/api/plugins/nope/enable', {}],
      ['POST', '/api/plugins/nope/disable'],
      ['PATCH', '/api/plugins/nope/settings', { settings: { model: 'x' } }],
      ['POST', `/api/works/${work.id}/plugins/nope/enable`, {}],
      ['POST', `/api/works/${work.id}/plugins/nope/disable`],
      ['PATCH', `/api/works/${work.id}/plugins/nope/settings`, {}],
      ['POST', `/api/works/${work.id}/plugins/nope/capability`, { capability: 'ai-provider' }],
    ]
    for (const [method, url, payload] of routes) {
      assertError(await call(h, me, method, url, payload), 404, 'PLUGIN_NOT_FOUND')
    }
    for (const id of ['OpenAI', 'open%20ai', 'x'.repeat(65), "openai'--"]) {
      assertError(await call(h, me, 'GET', `/api/plugins/${id}`), 404, 'PLUGIN_NOT_FOUND')
      assertError(
        await call(h, me, 'POST', `/api/works/${work.id}/plugins/${id}/enable`, {}),
        404,
        'PLUGIN_NOT_FOUND',
      )
    }
    assert.deepEqual(await workRows(work.id), [])
  })
})

describe('platform plugins: enabling and settings', () => {
  it('enable stores the plain setting, masks the secret, and never answers its value', async () => {
    const me = await account()
    const secret = newSecret()
    const res = await call(h, me, 'POST', '/api/plugins/openai/enable', {
      settings: { model: 'gpt-4o' },
      secretSettings: { apiKey: secret },
      autoEnableForWorks: false,
    })
    assert.equal(res.statusCode, 200, res.body)
    assert.ok(!res.body.includes(secret), 'the secret is not in the answer')
    assert.ok(!res.body.includes(secret.slice(0, -4)))
    const enabled = res.json()
    assert.equal(enabled.enabled, true)
    assert.equal(enabled.configured, true)
    assert.equal(enabled.autoEnableForWorks, false)
    assert.deepEqual(enabled.settings, { model: 'gpt-4o', apiKey: `${MASK}${secret.slice(-4)}` })

    for (const url of ['/api/plugins/openai', '/api/plugins', '/api/plugins/settings-menu']) {
      const read = await call(h, me, 'GET', url)
      assert.equal(read.statusCode, 200, read.body)
      assert.ok(!read.body.includes(secret), `${url} does not show the secret`)
    }
    const details = (await call(h, me, 'GET', '/api/plugins/openai')).json()
    assert.deepEqual(details.settings, enabled.settings)
    assert.equal(details.enabled, true)
    assert.equal(details.configured, true)
  })

  it('a short secret is masked without any of its characters', async () => {
    const me = await account()
    const res = await call(h, me, 'POST', '/api/plugins/github/enable', {
      secretSettings: { token: 'ghp_short' },
    })
    assert.equal(res.statusCode, 200, res.body)
    assert.equal(res.json().settings.token, MASK)
  })

  it('the secret is stored only as an enc:v1 envelope', async () => {
    const me = await account()
    const secret = newSecret()
    await enablePlugin(h, me, 'openai', { settings: { model: 'gpt-4o' }, secretSettings: { apiKey: secret } })
    const row = await userRow(me.userId, 'openai')
    assert.ok(row)
    assert.deepEqual(row.settings, { model: 'gpt-4o' })
    assert.deepEqual(Object.keys(row.secretSettings), ['apiKey'])
    assert.match(row.secretSettings.apiKey!, /^enc:v1:[A-Za-z0-9+/]+=*$/)
    assert.ok(!JSON.stringify(row).includes(secret))
    assert.ok(!JSON.stringify(row).includes(secret.slice(-8)))
  })

  it('the activity log records plugin.enabled with the setting names, never the secret', async () => {
    const me = await account()
    const secret = newSecret()
    await enablePlugin(h, me, 'openai', { settings: { model: 'gpt-4o' }, secretSettings: { apiKey: secret } })
    const entries = await activities(me)
    const enabled = entries.find((entry) => entry.action === 'plugin.enabled')
    assert.ok(enabled, JSON.stringify(entries))
    assert.equal(enabled.details.pluginId, 'openai')
    assert.deepEqual([...(enabled.details.settingsChanged as string[])].sort(), ['apiKey', 'model'])
    assert.ok(!JSON.stringify(entries).includes(secret))
  })

  it('enabling again merges the settings sent into the stored ones', async () => {
    const me = await account()
    const secret = newSecret()
    await enablePlugin(h, me, 'openai', { settings: { model: 'gpt-4o' }, secretSettings: { apiKey: secret } })
    const again = await enablePlugin(h, me, 'openai', {
      settings: { baseUrl: 'https://openrouter.ai/api/v1' },
    })
    assert.deepEqual(again.settings, {
      baseUrl: 'https://openrouter.ai/api/v1',
      model: 'gpt-4o',
      apiKey: `${MASK}${secret.slice(-4)}`,
    })
  })

  it('every failing setting is named in one 400, and nothing is stored', async () => {
    const me = await account()
    const res = await call(h, me, 'POST', '/api/plugins/openai/enable', {
      settings: { colour: 'blue', apiKey: newSecret(), model: 5, baseUrl: 'ftp://files.example.com' },
      secretSettings: { model: 'gpt-4o' },
    })
    assertError(res, 400, 'VALIDATION_ERROR')
    const fields = res.json().details.map((detail: { field: string }) => detail.field)
    assert.deepEqual([...new Set(fields)].sort(), [
      'body.secretSettings.model',
      'body.settings.apiKey',
      'body.settings.baseUrl',
      'body.settings.colour',
      'body.settings.model',
    ])
    for (const detail of res.json().details as { message: string }[]) assert.ok(detail.message.length > 0)
    assert.equal(await userRow(me.userId, 'openai'), undefined)
    assert.equal((await call(h, me, 'GET', '/api/plugins/openai')).json().enabled, false)
  })

  it('each kind of wrong setting alone names its field', async () => {
    const me = await account()
    const cases: [object, string][] = [
      [{ settings: { colour: 'blue' } }, 'body.settings.colour'],
      [{ settings: { apiKey: newSecret() } }, 'body.settings.apiKey'],
      [{ secretSettings: { model: 'gpt-4o' } }, 'body.secretSettings.model'],
      [{ settings: { model: 5 } }, 'body.settings.model'],
      [{ settings: { model: true } }, 'body.settings.model'],
      [{ settings: { model: '' } }, 'body.settings.model'],
      [{ settings: { baseUrl: 'ftp://files.example.com/v1' } }, 'body.settings.baseUrl'],
      [{ settings: { baseUrl: 'not a url' } }, 'body.settings.baseUrl'],
      [{ settings: { baseUrl: 'javascript:alert(1)' } }, 'body.settings.baseUrl'],
      [{ secretSettings: { apiKey: 12345 } }, 'body.secretSettings.apiKey'],
      [{ secretSettings: { apiKey: 'x'.repeat(501) } }, 'body.secretSettings.apiKey'],
    ]
    for (const [body, field] of cases) {
      const res = await call(h, me, 'POST', '/api/plugins/openai/enable', body)
      assertError(res, 400, 'VALIDATION_ERROR')
      assert.deepEqual(
        res.json().details.map((detail: { field: string }) => detail.field),
        [field],
        JSON.stringify(body),
      )
    }
    assert.equal(await userRow(me.userId, 'openai'), undefined)
  })

  it('names every object inherits (constructor, valueOf…) are not settings: 400, never 500', async () => {
    const me = await openAiUser()
    for (const name of ['constructor', 'toString', 'valueOf', 'hasOwnProperty', 'isPrototypeOf']) {
      for (const group of ['settings', 'secretSettings']) {
        const res = await call(h, me, 'PATCH', '/api/plugins/openai/settings', { [group]: { [name]: 'x' } })
        assertError(res, 400, 'VALIDATION_ERROR')
        assert.deepEqual(res.json().details, [
          { field: `body.${group}.${name}`, message: 'is not a setting of this plugin' },
        ])
      }
    }
    assert.deepEqual((await userRow(me.userId, 'openai'))!.settings, {})
  })

  it('PATCH merges settings, null removes one, and other settings are kept', async () => {
    const me = await account()
    const secret = newSecret()
    await enablePlugin(h, me, 'openai', {
      settings: { model: 'gpt-4o', baseUrl: 'https://openrouter.ai/api/v1' },
      secretSettings: { apiKey: secret },
    })
    const merged = await call(h, me, 'PATCH', '/api/plugins/openai/settings', {
      settings: { model: 'gpt-4.1' },
    })
    assert.equal(merged.statusCode, 200, merged.body)
    assert.deepEqual(merged.json().settings, {
      baseUrl: 'https://openrouter.ai/api/v1',
      model: 'gpt-4.1',
      apiKey: `${MASK}${secret.slice(-4)}`,
    })
    const removed = await call(h, me, 'PATCH', '/api/plugins/openai/settings', {
      settings: { baseUrl: null },
    })
    assert.deepEqual(removed.json().settings, { model: 'gpt-4.1', apiKey: `${MASK}${secret.slice(-4)}` })
    const noSecret = await call(h, me, 'PATCH', '/api/plugins/openai/settings', {
      secretSettings: { apiKey: null },
    })
    assert.deepEqual(noSecret.json().settings, { model: 'gpt-4.1' })
    assert.equal(noSecret.json().configured, false)
    assert.deepEqual((await userRow(me.userId, 'openai'))!.secretSettings, {})
  })

  it('a masked secret sent back keeps the stored one: the provider still gets the original key', async () => {
    const me = await openAiUser()
    const masked = (await call(h, me, 'GET', '/api/plugins/openai')).json().settings.apiKey
    assert.equal(masked, `${MASK}${fake.apiKey.slice(-4)}`)
    const sealedBefore = (await userRow(me.userId, 'openai'))!.secretSettings.apiKey
    const res = await call(h, me, 'PATCH', '/api/plugins/openai/settings', {
      settings: { model: 'gpt-4o' },
      secretSettings: { apiKey: masked },
    })
    assert.equal(res.statusCode, 200, res.body)
    assert.equal(res.json().settings.apiKey, masked)
    assert.equal((await userRow(me.userId, 'openai'))!.secretSettings.apiKey, sealedBefore)

    const seen = fake.requests.length
    const models = await call(h, me, 'GET', '/api/plugins/openai/models')
    assert.equal(models.statusCode, 200, models.body)
    const sent = fake.requests.slice(seen)
    assert.equal(sent.length, 1)
    assert.equal(sent[0]!.headers.authorization, `Bearer ${fake.apiKey}`)
  })

  it('a new secret replaces the stored one', async () => {
    const me = await account()
    await enablePlugin(h, me, 'openai', { secretSettings: { apiKey: newSecret() } })
    const replacement = newSecret()
    const res = await call(h, me, 'PATCH', '/api/plugins/openai/settings', {
      secretSettings: { apiKey: replacement },
    })
    assert.equal(res.json().settings.apiKey, `${MASK}${replacement.slice(-4)}`)
    assert.ok(!res.body.includes(replacement))
  })

  it('PATCH merges metadata, null removes a key, and it is shown in the details', async () => {
    const me = await openAiUser()
    const first = await call(h, me, 'PATCH', '/api/plugins/openai/settings', {
      metadata: { setupStep: 'key', seen: { tour: true } },
    })
    assert.equal(first.statusCode, 200, first.body)
    assert.deepEqual(first.json().metadata, { setupStep: 'key', seen: { tour: true } })
    const second = await call(h, me, 'PATCH', '/api/plugins/openai/settings', {
      metadata: { setupStep: 'done', seen: null, count: 2 },
    })
    assert.deepEqual(second.json().metadata, { setupStep: 'done', count: 2 })
    assert.deepEqual((await call(h, me, 'GET', '/api/plugins/openai')).json().metadata, {
      setupStep: 'done',
      count: 2,
    })
    assert.equal(second.json().settings.apiKey, `${MASK}${fake.apiKey.slice(-4)}`, 'settings untouched')
  })

  it('PATCH records plugin.configured with the names changed', async () => {
    const me = await openAiUser()
    await call(h, me, 'PATCH', '/api/plugins/openai/settings', { settings: { model: 'gpt-4o' } })
    const configured = (await activities(me)).find((entry) => entry.action === 'plugin.configured')
    assert.ok(configured)
    assert.deepEqual(configured.details.settingsChanged, ['model'])
  })

  it('PATCH of a plugin not enabled is 400 PLUGIN_NOT_ENABLED, also once it was disabled', async () => {
    const me = await account()
    assertError(
      await call(h, me, 'PATCH', '/api/plugins/openai/settings', { settings: { model: 'gpt-4o' } }),
      400,
      'PLUGIN_NOT_ENABLED',
    )
    assert.equal(await userRow(me.userId, 'openai'), undefined)
    await enablePlugin(h, me, 'openai', { settings: { model: 'gpt-4o' } })
    await call(h, me, 'POST', '/api/plugins/openai/disable')
    assertError(
      await call(h, me, 'PATCH', '/api/plugins/openai/settings', { settings: { model: 'gpt-4.1' } }),
      400,
      'PLUGIN_NOT_ENABLED',
    )
    assert.deepEqual((await userRow(me.userId, 'openai'))!.settings, { model: 'gpt-4o' })
  })

  it('an invalid PATCH is 400 naming its settings and changes nothing', async () => {
    const me = await openAiUser({ settings: { model: 'gpt-4o' } })
    const before = await userRow(me.userId, 'openai')
    const res = await call(h, me, 'PATCH', '/api/plugins/openai/settings', {
      settings: { model: 'gpt-4.1', baseUrl: 'file:///etc/passwd' },
      secretSettings: { baseUrl: 'https://example.com' },
    })
    assertError(res, 400, 'VALIDATION_ERROR')
    assert.deepEqual(
      res
        .json()
        .details.map((detail: { field: string }) => detail.field)
        .sort(),
      ['body.secretSettings.baseUrl', 'body.settings.baseUrl'],
    )
    assert.deepEqual(await userRow(me.userId, 'openai'), before)
  })

  it(race('concurrent PATCHes of metadata lose none of the keys'), async () => {
    const me = await openAiUser()
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, index) =>
        call(h, me, 'PATCH', '/api/plugins/openai/settings', { metadata: { [`step${index}`]: index } }),
      ),
    )
    for (const res of answers) assert.equal(res.statusCode, 200, res.body)
    const metadata = (await call(h, me, 'GET', '/api/plugins/openai')).json().metadata
    assert.deepEqual(
      metadata,
      Object.fromEntries(Array.from({ length: 8 }, (_, index) => [`step${index}`, index])),
    )
  })

  it(race('concurrent enables with different settings keep every one of them'), async () => {
    const me = await openAiUser()
    const newKey = newSecret()
    const changes = [
      { settings: { model: 'gpt-4o' } },
      { settings: { baseUrl: 'https://openrouter.ai/api/v1' } },
      { secretSettings: { apiKey: newKey } },
      { autoEnableForWorks: false },
    ]
    const answers = await Promise.all(
      changes.map((body) => call(h, me, 'POST', '/api/plugins/openai/enable', body)),
    )
    for (const res of answers) assert.equal(res.statusCode, 200, res.body)
    const details = (await call(h, me, 'GET', '/api/plugins/openai')).json()
    assert.deepEqual(details.settings, {
      baseUrl: 'https://openrouter.ai/api/v1',
      model: 'gpt-4o',
      apiKey: `${MASK}${newKey.slice(-4)}`,
    })
    assert.equal(details.autoEnableForWorks, false)
  })

  it(race('concurrent first enables with different settings keep every one of them'), async () => {
    const me = await account()
    const key = newSecret()
    const answers = await Promise.all([
      call(h, me, 'POST', '/api/plugins/openai/enable', { settings: { model: 'gpt-4o' } }),
      call(h, me, 'POST', '/api/plugins/openai/enable', {
        settings: { baseUrl: 'https://openrouter.ai/api/v1' },
      }),
      call(h, me, 'POST', '/api/plugins/openai/enable', { secretSettings: { apiKey: key } }),
    ])
    for (const res of answers) assert.equal(res.statusCode, 200, res.body)
    assert.deepEqual((await call(h, me, 'GET', '/api/plugins/openai')).json().settings, {
      baseUrl: 'https://openrouter.ai/api/v1',
      model: 'gpt-4o',
      apiKey: `${MASK}${key.slice(-4)}`,
    })
  })

  it(race('an enable and a PATCH at once keep both changes'), async () => {
    const me = await openAiUser()
    const answers = await Promise.all([
      call(h, me, 'POST', '/api/plugins/openai/enable', { settings: { model: 'gpt-4o' } }),
      call(h, me, 'PATCH', '/api/plugins/openai/settings', {
        settings: { baseUrl: 'https://openrouter.ai/api/v1' },
      }),
    ])
    for (const res of answers) assert.equal(res.statusCode, 200, res.body)
    const { settings } = (await call(h, me, 'GET', '/api/plugins/openai')).json()
    assert.equal(settings.model, 'gpt-4o')
    assert.equal(settings.baseUrl, 'https://openrouter.ai/api/v1')
  })

  it(race('concurrent enables of one plugin all answer 200 and leave one row'), async () => {
    const me = await account()
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => call(h, me, 'POST', '/api/plugins/openai/enable', {})),
    )
    for (const res of answers) assert.equal(res.statusCode, 200, res.body)
    const rows = await h.databases.platform.db
      .select()
      .from(userPlugins)
      .where(eq(userPlugins.userId, me.userId))
    assert.equal(rows.length, 1)
  })
})

describe('platform plugins: settings menu', () => {
  it('lists only the enabled plugins, grouped by category with labels', async () => {
    const me = await account()
    const empty = await call(h, me, 'GET', '/api/plugins/settings-menu')
    assert.equal(empty.statusCode, 200, empty.body)
    assert.deepEqual(empty.json(), { categories: [] })

    await enablePlugin(h, me, 'openai', { secretSettings: { apiKey: newSecret() } })
    await enablePlugin(h, me, 'github', {})
    const menu = await call(h, me, 'GET', '/api/plugins/settings-menu')
    assert.deepEqual(menu.json(), {
      categories: [
        {
          id: 'ai-provider',
          label: 'AI providers',
          plugins: [{ id: 'openai', name: 'OpenAI', icon: { type: 'emoji', value: '🤖' }, configured: true }],
        },
        {
          id: 'git',
          label: 'Git hosting',
          plugins: [
            { id: 'github', name: 'GitHub', icon: { type: 'emoji', value: '🐙' }, configured: false },
          ],
        },
      ],
    })

    await call(h, me, 'POST', '/api/plugins/github/disable')
    await enablePlugin(h, me, 'vercel', { secretSettings: { token: newSecret('vercel') } })
    const after = await call(h, me, 'GET', '/api/plugins/settings-menu')
    assert.deepEqual(
      after.json().categories.map((category: { id: string; label: string }) => [category.id, category.label]),
      [
        ['ai-provider', 'AI providers'],
        ['deployment', 'Deployment'],
      ],
    )
    assert.equal(after.json().categories[1].plugins[0].configured, true)
  })
})

describe('platform plugins: disabling', () => {
  it('disable turns the plugin off for the user and every work they own, keeping the settings', async () => {
    const me = await account()
    const secret = newSecret()
    await enablePlugin(h, me, 'openai', {
      settings: { model: 'gpt-4o' },
      secretSettings: { apiKey: secret },
      autoEnableForWorks: true,
    })
    const first = await createWork(h, me, 'First guide')
    const second = await createWork(h, me, 'Second guide')
    assert.equal((await workPlugin(me, first.id, 'openai')).activeCapability, 'ai-provider')
    // Someone else's work, where the user is an editor, is not theirs to switch off.
    const other = await account()
    await enablePlugin(h, other, 'openai', { autoEnableForWorks: true })
    const theirs = await createWork(h, other, 'Their guide')
    await share(h, other, theirs.id, me, 'editor')

    const res = await call(h, me, 'POST', '/api/plugins/openai/disable')
    assert.equal(res.statusCode, 200, res.body)
    assert.equal(res.json().enabled, false)
    assert.deepEqual(res.json().settings, { model: 'gpt-4o', apiKey: `${MASK}${secret.slice(-4)}` })
    for (const work of [first, second]) {
      const entry = await workPlugin(me, work.id, 'openai')
      assert.equal(entry.enabled, false)
      assert.equal(entry.activeCapability, null)
    }
    const untouched = await workPlugin(other, theirs.id, 'openai')
    assert.equal(untouched.enabled, true)
    assert.equal(untouched.activeCapability, 'ai-provider')

    const listed = (await call(h, me, 'GET', '/api/plugins?category=ai-provider')).json().plugins[0]
    assert.equal(listed.enabled, false)
    const disabled = (await activities(me)).find((entry) => entry.action === 'plugin.disabled')
    assert.ok(disabled)
    assert.equal(disabled.details.worksDisabled, 2)

    const again = await enablePlugin(h, me, 'openai')
    assert.equal(again.enabled, true)
    assert.deepEqual(again.settings, { model: 'gpt-4o', apiKey: `${MASK}${secret.slice(-4)}` })
    assert.equal(again.autoEnableForWorks, true)
  })

  it('disabling a plugin never enabled answers it disabled and records nothing', async () => {
    const me = await account()
    const res = await call(h, me, 'POST', '/api/plugins/vercel/disable')
    assert.equal(res.statusCode, 200, res.body)
    assert.equal(res.json().enabled, false)
    assert.equal(await userRow(me.userId, 'vercel'), undefined)
    assert.equal((await activities(me)).filter((entry) => entry.action === 'plugin.disabled').length, 0)
  })
})

describe('platform plugins: models', () => {
  it('lists the provider’s models, mapped and sorted, asked with the user’s key at the base URL', async () => {
    const me = await openAiUser()
    fake.models([
      { id: 'gpt-4o' },
      { id: 'acme/large', name: 'Acme Large', context_length: 32_000 },
      { id: 'mystery-model' },
    ])
    const seen = fake.requests.length
    const res = await call(h, me, 'GET', '/api/plugins/openai/models')
    assert.equal(res.statusCode, 200, res.body)
    assert.deepEqual(res.json(), [
      { id: 'acme/large', name: 'Acme Large', contextLength: 32_000 },
      { id: 'gpt-4o', name: 'gpt-4o', contextLength: 128_000 },
      { id: 'mystery-model', name: 'mystery-model', contextLength: 0 },
    ])
    const [request] = fake.requests.slice(seen)
    assert.equal(request?.method, 'GET')
    assert.equal(request?.path, '/v1/models')
    assert.equal(request?.headers.authorization, `Bearer ${fake.apiKey}`)
  })

  it('the server’s OPENAI_API_KEY is used when the user set no key', async () => {
    const me = await account(withEnvKey)
    await enablePlugin(withEnvKey, me, 'openai', { settings: { baseUrl: fake.url } })
    fake.models([{ id: 'gpt-4o-mini' }])
    const seen = fake.requests.length
    const res = await call(withEnvKey, me, 'GET', '/api/plugins/openai/models')
    assert.equal(res.statusCode, 200, res.body)
    assert.deepEqual(
      res.json().map((model: { id: string }) => model.id),
      ['gpt-4o-mini'],
    )
    assert.equal(fake.requests.slice(seen)[0]?.headers.authorization, `Bearer ${fake.apiKey}`)
  })

  it('a plugin not enabled is 400 PLUGIN_NOT_ENABLED, without asking the provider', async () => {
    const me = await account()
    const seen = fake.requests.length
    assertError(await call(h, me, 'GET', '/api/plugins/openai/models'), 400, 'PLUGIN_NOT_ENABLED')
    await enablePlugin(h, me, 'openai', { secretSettings: { apiKey: fake.apiKey } })
    await call(h, me, 'POST', '/api/plugins/openai/disable')
    assertError(await call(h, me, 'GET', '/api/plugins/openai/models'), 400, 'PLUGIN_NOT_ENABLED')
    assert.equal(fake.requests.length, seen)
  })

  it('enabled without a key, and none on the server, is 400 PLUGIN_NOT_CONFIGURED', async () => {
    const me = await account()
    await enablePlugin(h, me, 'openai', { settings: { model: 'gpt-4o' } })
    const seen = fake.requests.length
    const res = await call(h, me, 'GET', '/api/plugins/openai/models')
    assertError(res, 400, 'PLUGIN_NOT_CONFIGURED')
    assert.match(res.json().message, /apiKey/)
    assert.equal(fake.requests.length, seen)
  })

  it('a plugin that is not an AI provider is 400 NOT_AN_AI_PROVIDER', async () => {
    const me = await account()
    await enablePlugin(h, me, 'github', { secretSettings: { token: newSecret('ghp') } })
    assertError(await call(h, me, 'GET', '/api/plugins/github/models'), 400, 'NOT_AN_AI_PROVIDER')
    assertError(await call(h, me, 'GET', '/api/plugins/vercel/models'), 400, 'NOT_AN_AI_PROVIDER')
  })

  it('a key the provider rejects is 400 PROVIDER_CREDENTIALS_REJECTED with its reason, never the key', async () => {
    const me = await account()
    const wrongKey = newSecret('sk-wrong')
    await enablePlugin(h, me, 'openai', { secretSettings: { apiKey: wrongKey } })
    const res = await call(h, me, 'GET', '/api/plugins/openai/models')
    assertError(res, 400, 'PROVIDER_CREDENTIALS_REJECTED')
    assert.match(res.json().message, /Incorrect API key provided/)
    assert.ok(!res.body.includes(wrongKey))
    assert.ok(!res.body.includes(wrongKey.slice(0, 20)))

    const other = await openAiUser()
    fake.nextModels({ status: 401, error: { message: 'Your key was revoked by the organisation owner.' } })
    const revoked = await call(h, other, 'GET', '/api/plugins/openai/models')
    assertError(revoked, 400, 'PROVIDER_CREDENTIALS_REJECTED')
    assert.match(revoked.json().message, /revoked by the organisation owner/)
    assert.ok(!revoked.body.includes(fake.apiKey))
  })

  it('a provider out of credits is 400 PROVIDER_CREDITS_EXHAUSTED', async () => {
    const me = await openAiUser()
    fake.nextModels({
      status: 429,
      error: { message: 'You exceeded your quota.', type: 'insufficient_quota' },
    })
    assertError(await call(h, me, 'GET', '/api/plugins/openai/models'), 400, 'PROVIDER_CREDITS_EXHAUSTED')
  })

  it('a provider failing with 500 is 502 PROVIDER_ERROR', async () => {
    const me = await openAiUser()
    fake.nextModels({ status: 500 })
    const res = await call(h, me, 'GET', '/api/plugins/openai/models')
    assertError(res, 502, 'PROVIDER_ERROR')
    assert.match(res.json().message, /^OpenAI: /)
  })

  it('a provider that does not answer within the time limit is 504 PROVIDER_TIMEOUT', async () => {
    const me = await openAiUser()
    fake.nextModels({ hang: true })
    const res = await call(h, me, 'GET', '/api/plugins/openai/models')
    assertError(res, 504, 'PROVIDER_TIMEOUT')
    assert.match(res.json().message, /within 1000 ms/, 'the 1 s limit, not a default one')
  })

  it('an HTML answer is 502, whether with 200 or a gateway error status', async () => {
    const me = await openAiUser()
    const page = '<html><body><h1>502 Bad Gateway</h1><p>nginx</p></body></html>'
    fake.nextModels({ raw: { status: 200, contentType: 'text/html', body: page } })
    assertError(await call(h, me, 'GET', '/api/plugins/openai/models'), 502, 'PROVIDER_ERROR')
    fake.nextModels({ raw: { status: 502, contentType: 'text/html', body: page } })
    const gateway = await call(h, me, 'GET', '/api/plugins/openai/models')
    assertError(gateway, 502, 'PROVIDER_ERROR')
    assert.ok(!gateway.json().message.includes('<'), gateway.json().message)
  })

  it('no provider failure ever answers 500', async () => {
    const me = await openAiUser()
    const failures = [
      { status: 400 },
      { status: 403 },
      { status: 404 },
      { status: 409 },
      { status: 429 },
      { status: 503 },
      { raw: { status: 200, contentType: 'application/json', body: '{"object":"list","data":' } },
      {
        raw: { status: 200, contentType: 'application/json', body: '{"object":"list","data":[{"nope":1}]}' },
      },
      { raw: { status: 200, contentType: 'text/plain', body: 'ok' } },
      { raw: { status: 204, contentType: 'application/json', body: '' } },
    ]
    for (const failure of failures) {
      fake.nextModels(failure)
      const res = await call(h, me, 'GET', '/api/plugins/openai/models')
      assert.ok([400, 502, 504].includes(res.statusCode), `${JSON.stringify(failure)}: ${res.body}`)
      assert.match(res.json().code, /^PROVIDER_/, res.body)
    }
  })

  it('an unreachable provider is 502', async () => {
    const me = await openAiUser({ settings: { baseUrl: 'http://127.0.0.1:1/v1' } })
    assertError(await call(h, me, 'GET', '/api/plugins/openai/models'), 502, 'PROVIDER_ERROR')
  })
})

describe('platform plugins: work level', () => {
  it('a new work lists every plugin, none enabled', async () => {
    const me = await account()
    const work = await createWork(h, me)
    const res = await call(h, me, 'GET', `/api/works/${work.id}/plugins`)
    assert.equal(res.statusCode, 200, res.body)
    assert.deepEqual(res.json(), {
      plugins: [
        ['openai', 'OpenAI', 'ai-provider'],
        ['vercel', 'Vercel', 'deployment'],
        ['github', 'GitHub', 'git'],
      ].map(([id, name, category]) => ({
        id,
        name,
        category,
        enabled: false,
        activeCapability: null,
        priority: 0,
        settings: {},
      })),
    })
  })

  it('autoEnableForWorks enables the plugin for a new work as its provider; existing works are untouched', async () => {
    const me = await account()
    const existing = await createWork(h, me, 'Existing guide')
    await enablePlugin(h, me, 'openai', { secretSettings: { apiKey: newSecret() }, autoEnableForWorks: true })
    await enablePlugin(h, me, 'github', { autoEnableForWorks: true })
    await enablePlugin(h, me, 'vercel', { autoEnableForWorks: false })
    const created = await createWork(h, me, 'New guide')
    const list = (await call(h, me, 'GET', `/api/works/${created.id}/plugins`)).json().plugins
    const state = Object.fromEntries(
      list.map((plugin: { id: string; enabled: boolean; activeCapability: string | null }) => [
        plugin.id,
        [plugin.enabled, plugin.activeCapability],
      ]),
    )
    assert.deepEqual(state, {
      openai: [true, 'ai-provider'],
      github: [true, 'git-host'],
      vercel: [false, null],
    })
    assert.deepEqual(await workRows(existing.id), [])
    assert.equal((await workPlugin(me, existing.id, 'openai')).enabled, false)
  })

  it('openai is auto-enabled for new works by default; autoEnableForWorks false opts out', async () => {
    const byDefault = await openAiUser()
    assert.equal((await workPlugin(byDefault, (await createWork(h, byDefault)).id, 'openai')).enabled, true)
    const optedOut = await openAiUser({ autoEnableForWorks: false })
    const work = await createWork(h, optedOut)
    assert.equal((await workPlugin(optedOut, work.id, 'openai')).enabled, false)
  })

  it('enabling for a work needs the owner’s user-level enable: 400 PLUGIN_NOT_ENABLED', async () => {
    const me = await account()
    const work = await createWork(h, me)
    const res = await call(h, me, 'POST', `/api/works/${work.id}/plugins/openai/enable`, {})
    assertError(res, 400, 'PLUGIN_NOT_ENABLED')
    assert.deepEqual(await workRows(work.id), [])
    await enablePlugin(h, me, 'openai', { autoEnableForWorks: false })
    const ok = await call(h, me, 'POST', `/api/works/${work.id}/plugins/openai/enable`, {
      settings: { model: 'gpt-4o' },
      priority: 3,
    })
    assert.equal(ok.statusCode, 200, ok.body)
    assert.deepEqual(ok.json(), {
      id: 'openai',
      name: 'OpenAI',
      category: 'ai-provider',
      enabled: true,
      activeCapability: 'ai-provider',
      priority: 3,
      settings: { model: 'gpt-4o' },
    })
    const audit = (await activities(me)).find((entry) => entry.action === 'work.plugin_enabled')
    assert.ok(audit)
  })

  it('an activeCapability the plugin does not offer is 400 CAPABILITY_NOT_OFFERED', async () => {
    const me = await openAiUser({ autoEnableForWorks: false })
    const work = await createWork(h, me)
    assertError(
      await call(h, me, 'POST', `/api/works/${work.id}/plugins/openai/enable`, {
        activeCapability: 'deploy',
      }),
      400,
      'CAPABILITY_NOT_OFFERED',
    )
    assert.deepEqual(await workRows(work.id), [])
    await call(h, me, 'POST', `/api/works/${work.id}/plugins/openai/enable`, {})
    assertError(
      await call(h, me, 'POST', `/api/works/${work.id}/plugins/openai/capability`, {
        capability: 'git-host',
      }),
      400,
      'CAPABILITY_NOT_OFFERED',
    )
    assert.equal((await workPlugin(me, work.id, 'openai')).activeCapability, 'ai-provider')
  })

  it('work settings before the plugin is enabled for the work are 400 WORK_PLUGIN_NOT_ENABLED', async () => {
    const me = await openAiUser({ autoEnableForWorks: false })
    const work = await createWork(h, me)
    assertError(
      await call(h, me, 'PATCH', `/api/works/${work.id}/plugins/openai/settings`, {
        settings: { model: 'gpt-4o' },
      }),
      400,
      'WORK_PLUGIN_NOT_ENABLED',
    )
    assertError(
      await call(h, me, 'POST', `/api/works/${work.id}/plugins/openai/capability`, {
        capability: 'ai-provider',
      }),
      400,
      'WORK_PLUGIN_NOT_ENABLED',
    )
    assert.deepEqual(await workRows(work.id), [])
  })

  it('work settings are validated like the user’s and their secrets are masked and sealed', async () => {
    const me = await openAiUser()
    const work = await createWork(h, me)
    const bad = await call(h, me, 'PATCH', `/api/works/${work.id}/plugins/openai/settings`, {
      settings: { model: 7, apiKey: 'sk-in-the-wrong-place' },
    })
    assertError(bad, 400, 'VALIDATION_ERROR')
    assert.deepEqual(
      bad
        .json()
        .details.map((detail: { field: string }) => detail.field)
        .sort(),
      ['body.settings.apiKey', 'body.settings.model'],
    )
    const secret = newSecret()
    const res = await call(h, me, 'PATCH', `/api/works/${work.id}/plugins/openai/settings`, {
      settings: { model: 'gpt-4.1' },
      secretSettings: { apiKey: secret },
    })
    assert.equal(res.statusCode, 200, res.body)
    assert.ok(!res.body.includes(secret))
    assert.deepEqual(res.json().settings, { model: 'gpt-4.1', apiKey: `${MASK}${secret.slice(-4)}` })
    const [row] = await workRows(work.id)
    assert.match(row!.secretSettings.apiKey!, /^enc:v1:/)
    assert.ok(!JSON.stringify(row).includes(secret))
    const listed = await call(h, me, 'GET', `/api/works/${work.id}/plugins`)
    assert.ok(!listed.body.includes(secret))
  })

  it('work-level settings are shown in the work’s entry and win over the user’s', async () => {
    const me = await openAiUser({ settings: { model: 'gpt-4o' } })
    const work = await createWork(h, me)
    const res = await call(h, me, 'PATCH', `/api/works/${work.id}/plugins/openai/settings`, {
      settings: { model: 'gpt-4.1-mini' },
    })
    assert.equal(res.statusCode, 200, res.body)
    assert.deepEqual((await workPlugin(me, work.id, 'openai')).settings, { model: 'gpt-4.1-mini' })
    const { settings } = await h.services.plugins.resolveForWork(
      { id: work.id, ownerId: me.userId },
      'openai',
    )
    assert.equal(settings.model, 'gpt-4.1-mini')
    assert.equal((await call(h, me, 'GET', '/api/plugins/openai')).json().settings.model, 'gpt-4o')
  })

  it('settings resolve work > user > environment > default, each level removed in turn', async () => {
    const plugins = withEnvKey.services.plugins
    const me = await account()
    const userKey = newSecret('sk-user')
    const workKey = newSecret('sk-work')
    await enablePlugin(h, me, 'openai', {
      settings: { model: 'user-model', baseUrl: 'https://user.example.com/v1' },
      secretSettings: { apiKey: userKey },
      autoEnableForWorks: false,
    })
    const work = await createWork(h, me)
    const workUrl = `/api/works/${work.id}/plugins/openai`
    assert.equal(
      (await call(h, me, 'POST', `${workUrl}/enable`, { settings: { model: 'work-model' } })).statusCode,
      200,
    )
    const patched = await call(h, me, 'PATCH', `${workUrl}/settings`, {
      settings: { baseUrl: 'https://work.example.com/v1' },
      secretSettings: { apiKey: workKey },
    })
    assert.equal(patched.statusCode, 200, patched.body)
    const resolve = async (instance = plugins) =>
      (await instance.resolveForWork({ id: work.id, ownerId: me.userId }, 'openai')).settings

    assert.deepEqual(await resolve(), {
      baseUrl: 'https://work.example.com/v1',
      model: 'work-model',
      apiKey: workKey,
    })
    await call(h, me, 'PATCH', `${workUrl}/settings`, {
      settings: { baseUrl: null, model: null },
      secretSettings: { apiKey: null },
    })
    assert.deepEqual(await resolve(), {
      baseUrl: 'https://user.example.com/v1',
      model: 'user-model',
      apiKey: userKey,
    })
    await call(h, me, 'PATCH', '/api/plugins/openai/settings', {
      settings: { baseUrl: null, model: null },
      secretSettings: { apiKey: null },
    })
    // withEnvKey's server sets OPENAI_API_KEY and no OPENAI_API_URL; h's sets OPENAI_API_URL and no key.
    assert.deepEqual(await resolve(), {
      baseUrl: 'https://api.openai.com/v1',
      model: 'gpt-4o-mini',
      apiKey: fake.apiKey,
    })
    const onH = await h.services.plugins.resolveForWork({ id: work.id, ownerId: me.userId }, 'openai')
    assert.deepEqual(onH.settings, { baseUrl: fake.url, model: 'gpt-4o-mini', apiKey: undefined })
    assert.equal(onH.configured, false)
  })

  it('disabling for the work leaves the user level enabled', async () => {
    const me = await openAiUser()
    const work = await createWork(h, me)
    const res = await call(h, me, 'POST', `/api/works/${work.id}/plugins/openai/disable`)
    assert.equal(res.statusCode, 200, res.body)
    assert.equal(res.json().enabled, false)
    assert.equal(res.json().activeCapability, null)
    assert.equal((await call(h, me, 'GET', '/api/plugins/openai')).json().enabled, true)
    assert.ok((await activities(me)).some((entry) => entry.action === 'work.plugin_disabled'))
    const again = await call(h, me, 'POST', `/api/works/${work.id}/plugins/openai/enable`, {})
    assert.equal(again.json().activeCapability, 'ai-provider', 'enabled again, it takes its free capability')
  })

  it('a capability switch makes the plugin the provider and takes it from the previous holder', async () => {
    const me = await openAiUser({ autoEnableForWorks: false })
    const work = await createWork(h, me)
    // Another plugin holds ai-provider (planted: no shipped plugin but openai offers it).
    const now = new Date()
    await h.databases.platform.db.insert(workPlugins).values({
      workId: work.id,
      pluginId: 'github',
      enabled: true,
      activeCapability: 'ai-provider',
      createdAt: now,
      updatedAt: now,
    })
    const enabled = await call(h, me, 'POST', `/api/works/${work.id}/plugins/openai/enable`, {})
    assert.equal(enabled.statusCode, 200, enabled.body)
    assert.equal(
      enabled.json().activeCapability,
      null,
      'without activeCapability it takes no held capability',
    )

    const switched = await call(h, me, 'POST', `/api/works/${work.id}/plugins/openai/capability`, {
      capability: 'ai-provider',
    })
    assert.equal(switched.statusCode, 200, switched.body)
    assert.equal(switched.json().activeCapability, 'ai-provider')
    assert.equal((await workPlugin(me, work.id, 'github')).activeCapability, null)
    assert.equal((await workPlugin(me, work.id, 'openai')).activeCapability, 'ai-provider')
    const holders = (await workRows(work.id)).filter((row) => row.activeCapability === 'ai-provider')
    assert.deepEqual(
      holders.map((row) => row.pluginId),
      ['openai'],
    )
    const again = await call(h, me, 'POST', `/api/works/${work.id}/plugins/openai/capability`, {
      capability: 'ai-provider',
    })
    assert.equal(again.json().activeCapability, 'ai-provider', 'switching to what it holds is a no-op')
  })

  it('enable with activeCapability takes it from the previous holder', async () => {
    const me = await openAiUser({ autoEnableForWorks: false })
    const work = await createWork(h, me)
    const now = new Date()
    await h.databases.platform.db.insert(workPlugins).values({
      workId: work.id,
      pluginId: 'vercel',
      enabled: true,
      activeCapability: 'ai-provider',
      createdAt: now,
      updatedAt: now,
    })
    const res = await call(h, me, 'POST', `/api/works/${work.id}/plugins/openai/enable`, {
      activeCapability: 'ai-provider',
    })
    assert.equal(res.statusCode, 200, res.body)
    assert.equal(res.json().activeCapability, 'ai-provider')
    assert.equal((await workPlugin(me, work.id, 'vercel')).activeCapability, null)
  })

  it('the database refuses a second active holder of one capability in a work', async () => {
    const me = await account()
    const work = await createWork(h, me)
    const db = h.databases.platform.db
    const row = (pluginId: string, activeCapability: string | null) => {
      const now = new Date()
      return { workId: work.id, pluginId, enabled: true, activeCapability, createdAt: now, updatedAt: now }
    }
    await db.insert(workPlugins).values(row('openai', 'ai-provider'))
    await assert.rejects(db.insert(workPlugins).values(row('github', 'ai-provider')), (error: Error) => {
      const cause = error.cause as { constraint?: string; message?: string; code?: string } | undefined
      assert.equal(cause?.code, '23505', String(cause?.message ?? error.message))
      assert.match(
        `${cause?.constraint ?? ''} ${cause?.message ?? ''}`,
        /work_plugins_active_capability_unique/,
      )
      return true
    })
    // Plugins holding no capability are not limited.
    await db.insert(workPlugins).values([row('github', null), row('vercel', null)])
    assert.equal((await workRows(work.id)).length, 3)
  })

  it(
    race('concurrent switches and enables end with exactly one holder per capability, all 200'),
    async () => {
      const me = await openAiUser({ autoEnableForWorks: false })
      await enablePlugin(h, me, 'github', { autoEnableForWorks: false })
      const work = await createWork(h, me)
      await call(h, me, 'POST', `/api/works/${work.id}/plugins/openai/enable`, {})
      const base = `/api/works/${work.id}/plugins`
      const answers = await Promise.all(
        Array.from({ length: 12 }, (_, index) => {
          if (index % 3 === 0)
            return call(h, me, 'POST', `${base}/openai/capability`, { capability: 'ai-provider' })
          if (index % 3 === 1) {
            return call(h, me, 'POST', `${base}/openai/enable`, { activeCapability: 'ai-provider' })
          }
          return call(h, me, 'POST', `${base}/github/enable`, { activeCapability: 'git-host' })
        }),
      )
      for (const res of answers) assert.equal(res.statusCode, 200, res.body)
      const rows = await workRows(work.id)
      const holders = (capability: string) =>
        rows.filter((row) => row.activeCapability === capability).map((row) => row.pluginId)
      assert.deepEqual(holders('ai-provider'), ['openai'])
      assert.deepEqual(holders('git-host'), ['github'])
    },
  )

  it('a viewer is 403 WORK_EDIT_FORBIDDEN on every work plugin route; an editor may change them', async () => {
    const owner = await openAiUser({ autoEnableForWorks: false })
    const editor = await account()
    const viewer = await account()
    const work = await createWork(h, owner)
    await share(h, owner, work.id, editor, 'editor')
    await share(h, owner, work.id, viewer, 'viewer')
    for (const [method, url, payload] of workRoutes(work.id)) {
      assertError(await call(h, viewer, method, url, payload), 403, 'WORK_EDIT_FORBIDDEN')
    }
    assert.deepEqual(await workRows(work.id), [])

    for (const [method, url, payload] of workRoutes(work.id)) {
      const res = await call(h, editor, method, url, payload)
      assert.equal(res.statusCode, 200, `${method} ${url}: ${res.body}`)
    }
    assert.equal((await workPlugin(owner, work.id, 'openai')).enabled, false, 'the editor disabled it last')
  })

  it('on a shared work, an editor’s enable checks the owner’s user-level enable, not the editor’s', async () => {
    const owner = await account()
    const editor = await openAiUser()
    const work = await createWork(h, owner)
    await share(h, owner, work.id, editor, 'editor')
    const refused = await call(h, editor, 'POST', `/api/works/${work.id}/plugins/openai/enable`, {})
    assertError(refused, 400, 'PLUGIN_NOT_ENABLED')
    assert.match(refused.json().message, /owner/)
    await enablePlugin(h, owner, 'openai', { autoEnableForWorks: false })
    const accepted = await call(h, editor, 'POST', `/api/works/${work.id}/plugins/openai/enable`, {})
    assert.equal(accepted.statusCode, 200, accepted.body)
    assert.equal(accepted.json().activeCapability, 'ai-provider')
    // The work resolves its owner's settings: the owner has no key, the editor's does not count.
    const resolved = await h.services.plugins.resolveForWork({ id: work.id, ownerId: owner.userId }, 'openai')
    assert.equal(resolved.configured, false)
  })
})

const workRoutes = (workId: string, pluginId = 'openai'): [string, string, object?][] => [
  ['GET', `/api/works/${workId}/plugins`],
  ['POST', `/api/works/${workId}/plugins/${pluginId}/enable`, {}],
  ['PATCH', `/api/works/${workId}/plugins/${pluginId}/settings`, { settings: { model: 'gpt-4o' } }],
  ['POST', `/api/works/${workId}/plugins/${pluginId}/capability`, { capability: 'ai-provider' }],
  ['POST', `/api/works/${workId}/plugins/${pluginId}/disable`],
]

const userRoutes = (pluginId = 'openai'): [string, string, object?][] => [
  ['GET', '/api/plugins'],
  ['GET', '/api/plugins/settings-menu'],
  ['GET', `/api/plugins/${pluginId}`],
  ['GET', `/api/plugins/${pluginId}/models`],
  ['POST', `/api/plugins/${pluginId}/enable`, {}],
  ['POST', `/api/plugins/${pluginId}/disable`],
  ['PATCH', `/api/plugins/${pluginId}/settings`, { settings: { model: 'gpt-4o' } }],
]

describe('platform plugins: security', () => {
  it('every plugin route answers 401 without a token or with a bad one', async () => {
    const owner = await account()
    const work = await createWork(h, owner)
    for (const [method, url, payload] of [...userRoutes(), ...workRoutes(work.id)]) {
      const anonymous = await h.app.inject({ method: method as 'GET', url, ...(payload ? { payload } : {}) })
      assert.equal(anonymous.statusCode, 401, `${method} ${url}: ${anonymous.body}`)
      const garbage = await h.app.inject({
        method: method as 'GET',
        url,
        headers: { authorization: 'Bearer not-a-token' },
        ...(payload ? { payload } : {}),
      })
      assert.equal(garbage.statusCode, 401, `${method} ${url}: ${garbage.body}`)
    }
    assert.deepEqual(await workRows(work.id), [])
  })

  it('an API key is 403 API_KEY_NOT_ALLOWED on every plugin route', async () => {
    const owner = await openAiUser()
    const work = await createWork(h, owner)
    const created = await call(h, owner, 'POST', '/api/auth/api-keys', { name: 'plugins script' })
    assert.ok(created.statusCode < 300, created.body)
    const key: string = created.json().key
    for (const [method, url, payload] of [...userRoutes(), ...workRoutes(work.id)]) {
      for (const headers of [{ 'x-api-key': key }, { authorization: `Bearer ${key}` }]) {
        const res = await h.app.inject({
          method: method as 'GET',
          url,
          headers,
          ...(payload ? { payload } : {}),
        })
        assertError(res, 403, 'API_KEY_NOT_ALLOWED')
      }
    }
    assert.equal((await workPlugin(owner, work.id, 'openai')).enabled, true, 'nothing changed')
    assert.equal((await call(h, owner, 'GET', '/api/plugins/openai')).json().enabled, true)
  })

  it('a stranger is 404 WORK_NOT_FOUND on every route of someone else’s work, and changes nothing', async () => {
    const owner = await openAiUser()
    const stranger = await openAiUser()
    const work = await createWork(h, owner)
    const before = await workRows(work.id)
    for (const [method, url, payload] of [...workRoutes(work.id), ...workRoutes(work.id, 'nope')]) {
      const res = await call(h, stranger, method, url, payload)
      assertError(res, 404, 'WORK_NOT_FOUND')
    }
    assert.deepEqual(await workRows(work.id), before)
    const missing = await call(h, stranger, 'GET', `/api/works/${MISSING_ID}/plugins`)
    const theirs = await call(h, stranger, 'GET', `/api/works/${work.id}/plugins`)
    assert.deepEqual(missing.json(), theirs.json(), 'an unknown and another’s work look the same')
  })

  it('a malformed work id is 404 WORK_NOT_FOUND, never 400 or 500', async () => {
    const me = await openAiUser()
    for (const id of ['not-a-uuid', '123', "1' or '1'='1", '00000000-0000-4000-8000-00000000000g']) {
      for (const [method, url, payload] of workRoutes(encodeURIComponent(id))) {
        assertError(await call(h, me, method, url, payload), 404, 'WORK_NOT_FOUND')
      }
    }
  })

  it('another user’s settings are never shown: each account sees only its own', async () => {
    const first = await account()
    const second = await account()
    const secret = newSecret()
    await enablePlugin(h, first, 'openai', {
      settings: { model: 'gpt-4o' },
      secretSettings: { apiKey: secret },
    })
    const seen = await call(h, second, 'GET', '/api/plugins/openai')
    assert.equal(seen.json().enabled, false)
    assert.deepEqual(seen.json().settings, {})
    assert.ok(!seen.body.includes(secret.slice(-4)))
  })

  it('a sealed secret copied to another account’s row cannot be opened there: it counts as unset', async () => {
    const victim = await account()
    const thief = await account()
    await enablePlugin(h, victim, 'openai', { secretSettings: { apiKey: fake.apiKey } })
    await enablePlugin(h, thief, 'openai', {})
    const sealed = (await userRow(victim.userId, 'openai'))!.secretSettings
    await h.databases.platform.db
      .update(userPlugins)
      .set({ secretSettings: sealed })
      .where(and(eq(userPlugins.userId, thief.userId), eq(userPlugins.pluginId, 'openai')))
    const details = (await call(h, thief, 'GET', '/api/plugins/openai')).json()
    assert.deepEqual(details.settings, {})
    assert.equal(details.configured, false)
    const seen = fake.requests.length
    assertError(await call(h, thief, 'GET', '/api/plugins/openai/models'), 400, 'PLUGIN_NOT_CONFIGURED')
    assert.equal(fake.requests.length, seen, 'the provider was never asked with the copied key')
  })

  it('no secret reaches the logs, at debug level, through enable, PATCH, models and a provider failure', async () => {
    const lines: string[] = []
    const log = createLogger('debug', { write: (line: string) => void lines.push(line) })
    const logged = await startPlatform({
      databases: h.databases,
      log,
      env: { OPENAI_API_URL: fake.url, ...PROVIDER_LIMITS },
    })
    try {
      const me = await account(logged)
      const wrongKey = `wrong-${randomBytes(16).toString('hex')}`
      const tooLong = `secret-${'z'.repeat(600)}`
      await enablePlugin(logged, me, 'openai', { secretSettings: { apiKey: fake.apiKey } })
      const models = await call(logged, me, 'GET', '/api/plugins/openai/models')
      assert.equal(models.statusCode, 200, models.body)
      fake.nextModels({ status: 500 })
      assert.equal((await call(logged, me, 'GET', '/api/plugins/openai/models')).statusCode, 502)
      const patched = await call(logged, me, 'PATCH', '/api/plugins/openai/settings', {
        secretSettings: { apiKey: wrongKey },
      })
      assert.equal(patched.statusCode, 200, patched.body)
      assertError(
        await call(logged, me, 'GET', '/api/plugins/openai/models'),
        400,
        'PROVIDER_CREDENTIALS_REJECTED',
      )
      const refused = await call(logged, me, 'PATCH', '/api/plugins/openai/settings', {
        secretSettings: { apiKey: tooLong },
      })
      assertError(refused, 400, 'VALIDATION_ERROR')
      assert.ok(!refused.body.includes('zzzz'), 'a refused secret is not echoed')
      const work = await createWork(logged, me)
      const workSecret = newSecret('sk-work')
      const workPatch = await call(logged, me, 'PATCH', `/api/works/${work.id}/plugins/openai/settings`, {
        secretSettings: { apiKey: workSecret },
      })
      assert.equal(workPatch.statusCode, 200, workPatch.body)

      const text = lines.join('\n')
      for (const logged of [
        '/api/plugins/openai/enable',
        '/api/plugins/openai/models',
        'rejected the API key',
      ]) {
        assert.ok(text.includes(logged), `the log records ${logged}`)
      }
      for (const secret of [fake.apiKey, wrongKey, workSecret, 'z'.repeat(50)]) {
        assert.ok(!text.includes(secret), `a secret ending ${secret.slice(-6)} is in the log`)
      }
    } finally {
      await logged.close()
    }
  })
})
