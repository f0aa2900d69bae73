import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import { createManualClock } from '../../src/lib/clock.ts'
import { createEnvelope, ENVELOPE_PREFIX } from '../../src/lib/crypto.ts'
import type { HttpError, InputError } from '../../src/lib/errors.ts'
import { users } from '../../src/platform/auth/tables.ts'
import type { Plugin, PluginDefinition } from '../../src/platform/plugins/definition.ts'
import {
  categoryLabel,
  checkedPlugin,
  createPluginRegistry,
  loadPlugins,
  PLUGINS_DIR,
  PluginDefinitionError,
} from '../../src/platform/plugins/registry.ts'
import { validatedChange } from '../../src/platform/plugins/rules.ts'
import { createPluginService } from '../../src/platform/plugins/service.ts'
import {
  createPluginSettings,
  isMasked,
  maskSecret,
  SECRET_MASK,
} from '../../src/platform/plugins/settings.ts'
import { checkSettingsChange } from '../../src/platform/plugins/settings-schema.ts'
import { createTestDatabases } from '../helpers/database.ts'

const temporaryDirs: string[] = []
after(() => {
  for (const dir of temporaryDirs) rmSync(dir, { recursive: true, force: true })
})

const DEMO_README = '# Search demo\n\nFinds the items of a work.\n'

/** A plugin definition as a plain object, as a new plugin folder's `plugin.ts` exports it. */
function searchDemo(overrides: Record<string, unknown> = {}) {
  return {
    id: 'search-demo',
    name: 'Search demo',
    version: '0.1.0',
    description: 'Finds the items of a work.',
    category: 'search',
    capabilities: ['search'],
    icon: { type: 'emoji', value: '🔎' },
    settingsSchema: {
      type: 'object',
      properties: {
        indexName: { type: 'string', title: 'Index', minLength: 1, maxLength: 50, default: 'items' },
        resultsPerPage: {
          type: 'integer',
          title: 'Results per page',
          minimum: 1,
          maximum: 100,
          default: 10,
          'x-envVar': 'SEARCH_DEMO_RESULTS',
        },
        apiKey: {
          type: 'string',
          title: 'API key',
          minLength: 1,
          'x-secret': true,
          'x-envVar': 'SEARCH_DEMO_KEY',
        },
      },
      required: ['apiKey'],
      additionalProperties: false,
    },
    systemPlugin: false,
    builtIn: false,
    autoEnable: false,
    ...overrides,
  }
}

interface Folder {
  /** The whole `plugin.ts`; by default `export default <definition>`. */
  source?: string
  definition?: object
  /** null: no README.md. */
  readme?: string | null
}

/** A fresh plugins directory with these folders (a module is cached by path, so each test gets its own). */
function pluginsDir(folders: Record<string, Folder>): string {
  const dir = mkdtempSync(join(tmpdir(), 'curio-plugins-'))
  temporaryDirs.push(dir)
  writeFileSync(join(dir, 'package.json'), '{"type":"module"}\n')
  for (const [name, folder] of Object.entries(folders)) {
    mkdirSync(join(dir, name))
    const source =
      folder.source ?? `export default ${JSON.stringify(folder.definition ?? searchDemo(), null, 2)}\n`
    writeFileSync(join(dir, name, 'plugin.ts'), source)
    if (folder.readme !== null) writeFileSync(join(dir, name, 'README.md'), folder.readme ?? DEMO_README)
  }
  return dir
}

async function refused(folders: Record<string, Folder>, message: RegExp) {
  await assert.rejects(loadPlugins(pluginsDir(folders)), (error: Error) => {
    assert.ok(error instanceof PluginDefinitionError, String(error))
    assert.match(error.message, message)
    return true
  })
}

const silentLog = () => {
  const warnings: unknown[][] = []
  return { log: { warn: (...args: unknown[]) => void warnings.push(args) }, warnings }
}

describe('plugin registry: loading plugin folders', () => {
  it('loadPlugins() finds exactly the shipped folders, each with its README', async () => {
    const plugins = await loadPlugins()
    assert.deepEqual(plugins.map((plugin) => plugin.id).sort(), ['github', 'openai', 'vercel'])
    const folders = readdirSync(PLUGINS_DIR, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort()
    assert.deepEqual(folders, ['github', 'openai', 'vercel'])
    for (const plugin of plugins) {
      assert.equal(plugin.readme, readFileSync(join(PLUGINS_DIR, plugin.id, 'README.md'), 'utf8'))
      assert.ok(Object.isFrozen(plugin))
      assert.equal(plugin.builtIn, true)
    }
    const byId = new Map(plugins.map((plugin) => [plugin.id, plugin]))
    assert.equal(typeof byId.get('openai')?.aiProvider, 'function')
    assert.equal(byId.get('github')?.aiProvider, undefined)
  })

  it('a fourth plugin is one new folder: loaded, listed by category and name, and its settings checked', async () => {
    const dir = pluginsDir({ 'search-demo': {} })
    mkdirSync(join(dir, 'notes'))
    writeFileSync(join(dir, 'notes', 'README.md'), 'a folder without plugin.ts is not a plugin')
    writeFileSync(join(dir, 'stray.ts'), 'export default 1\n')
    const [demo, ...others] = await loadPlugins(dir)
    assert.equal(others.length, 0)
    assert.ok(demo)
    assert.equal(demo.id, 'search-demo')
    assert.equal(demo.readme, DEMO_README)
    assert.deepEqual(demo.capabilities, ['search'])

    const registry = createPluginRegistry([...(await loadPlugins()), demo])
    assert.deepEqual(
      registry.list().map((plugin) => [plugin.category, plugin.id]),
      [
        ['ai-provider', 'openai'],
        ['deployment', 'vercel'],
        ['git', 'github'],
        ['search', 'search-demo'],
      ],
    )
    assert.equal(registry.require('search-demo'), demo)
    assert.equal(registry.get('nope'), undefined)
    assert.throws(
      () => registry.require('nope'),
      (error: HttpError) => error.status === 404 && error.code === 'PLUGIN_NOT_FOUND',
    )
    assert.equal(categoryLabel('search'), 'Search')
    assert.equal(categoryLabel('data-sources'), 'Data sources')

    const good = checkSettingsChange(
      demo.settingsSchema,
      { settings: { indexName: 'docs', resultsPerPage: 20 }, secretSettings: { apiKey: 'sk-demo' } },
      'body',
    )
    assert.deepEqual(good, {
      result: { settings: { indexName: 'docs', resultsPerPage: 20 }, secrets: { apiKey: 'sk-demo' } },
      issues: [],
    })
    const bad = checkSettingsChange(
      demo.settingsSchema,
      {
        settings: { resultsPerPage: 2.5, apiKey: 'sk-demo', colour: 'blue', indexName: null },
        secretSettings: { indexName: 'docs' },
      },
      'body',
    )
    assert.deepEqual(bad.issues.map((issue) => issue.field).sort(), [
      'body.secretSettings.indexName',
      'body.settings.apiKey',
      'body.settings.colour',
      'body.settings.resultsPerPage',
    ])
    assert.throws(
      () => validatedChange(demo, { settings: { resultsPerPage: 500 } }),
      (error: InputError) => {
        assert.equal(error.status, 400)
        assert.deepEqual(
          error.issues.map((issue) => issue.field),
          ['body.settings.resultsPerPage'],
        )
        return true
      },
    )
  })

  it('the service serves a fourth plugin like a shipped one: listed, enabled, masked, in the menu', async () => {
    const [demo] = await loadPlugins(pluginsDir({ 'search-demo': {} }))
    const databases = await createTestDatabases()
    try {
      const db = databases.platform.db
      const clock = createManualClock()
      const registry = createPluginRegistry([demo!])
      const { log } = silentLog()
      const settings = createPluginSettings({
        envelope: createEnvelope(randomBytes(32)),
        env: (name) => ({ SEARCH_DEMO_RESULTS: '25' })[name],
        log,
      })
      const audited: unknown[] = []
      const service = createPluginService({
        db,
        clock,
        registry,
        settings,
        activity: { audit: async (entry) => void audited.push(entry) },
        providerLimits: { timeoutMs: 1000, maxRetries: 0 },
      })
      const [user] = await db
        .insert(users)
        .values({
          email: `demo-${randomBytes(4).toString('hex')}@example.com`,
          passwordHash: 'x',
          createdAt: clock.now(),
          updatedAt: clock.now(),
        })
        .returning()
      const userId = user!.id

      const [listed] = await service.list(userId, 'search')
      assert.equal(listed?.id, 'search-demo')
      assert.equal(listed?.enabled, false)
      assert.equal(listed?.configured, false)
      assert.deepEqual(await service.list(userId, 'ai-provider'), [])

      const secret = `sk-demo-${randomBytes(12).toString('hex')}`
      const enabled = await service.enable(
        userId,
        'search-demo',
        { settings: { indexName: 'docs' }, secretSettings: { apiKey: secret } },
        {},
      )
      assert.equal(enabled.enabled, true)
      assert.equal(enabled.configured, true)
      assert.equal(enabled.readme, DEMO_README)
      assert.deepEqual(enabled.settings, { indexName: 'docs', apiKey: `${SECRET_MASK}${secret.slice(-4)}` })
      assert.ok(!JSON.stringify(audited).includes(secret))
      assert.deepEqual(await service.settingsMenu(userId), {
        categories: [
          {
            id: 'search',
            label: 'Search',
            plugins: [
              {
                id: 'search-demo',
                name: 'Search demo',
                icon: { type: 'emoji', value: '🔎' },
                configured: true,
              },
            ],
          },
        ],
      })
      await assert.rejects(
        service.enable(userId, 'search-demo', { settings: { resultsPerPage: 0 } }, {}),
        (error: InputError) =>
          error.status === 400 && error.issues[0]?.field === 'body.settings.resultsPerPage',
      )
      await assert.rejects(
        service.models(userId, 'search-demo'),
        (error: HttpError) => error.status === 400 && error.code === 'NOT_AN_AI_PROVIDER',
      )
    } finally {
      await databases.close()
    }
  })

  it('a folder whose plugin id differs from its name is refused, naming both', async () => {
    await refused(
      { 'search-demo': { definition: searchDemo({ id: 'search' }) } },
      /Plugin "search-demo" is invalid: .*its id "search" differs from its folder "search-demo"/,
    )
  })

  it('a folder without README.md is refused, naming the folder', async () => {
    await refused({ 'search-demo': { readme: null } }, /Plugin folder .*search-demo has no README\.md/)
  })

  it('a plugin.ts without a default export is refused, naming the file', async () => {
    await refused(
      { 'search-demo': { source: 'export const plugin = {}\n' } },
      /search-demo[/\\]plugin\.ts has no default export/,
    )
  })

  it('a secret setting with a default is refused', async () => {
    const definition = searchDemo()
    Object.assign(definition.settingsSchema.properties.apiKey, { default: 'sk-shared' })
    await refused(
      { 'search-demo': { definition } },
      /Plugin "search-demo" is invalid: .*secret setting "apiKey" must not have a default/,
    )
  })

  it('a required setting that is not a property is refused', async () => {
    const definition = searchDemo()
    definition.settingsSchema.required = ['apiKey', 'token']
    await refused(
      { 'search-demo': { definition } },
      /Plugin "search-demo" is invalid: .*required setting "token" is not a property/,
    )
  })

  it('an x-envVar that is not an environment variable name is refused', async () => {
    for (const envVar of ['search-demo-results', 'lower_case', '1RESULTS', 'WITH SPACE', '']) {
      const definition = searchDemo()
      definition.settingsSchema.properties.resultsPerPage['x-envVar'] = envVar
      await refused(
        { 'search-demo': { definition } },
        /Plugin "search-demo" is invalid: .*setting "resultsPerPage" has a bad x-envVar/,
      )
    }
  })

  it('an ai-provider capability without aiProvider() is refused; with it, accepted', async () => {
    await refused(
      { 'search-demo': { definition: searchDemo({ capabilities: ['search', 'ai-provider'] }) } },
      /Plugin "search-demo" is invalid: .*it offers ai-provider but has no aiProvider\(\)/,
    )
    const definition = JSON.stringify(searchDemo({ capabilities: ['ai-provider'], category: 'ai-provider' }))
    const source = `export default { ...${definition}, aiProvider: () => { throw new Error('not called') } }\n`
    const [plugin] = await loadPlugins(pluginsDir({ 'search-demo': { source } }))
    assert.equal(typeof plugin?.aiProvider, 'function')
  })

  it('every problem of one definition is named in one refusal', async () => {
    const definition = searchDemo({ version: 'one', name: ' ', capabilities: [] })
    Object.assign(definition.settingsSchema.properties.indexName, { title: '' })
    await assert.rejects(loadPlugins(pluginsDir({ 'search-demo': { definition } })), (error: Error) => {
      assert.ok(error instanceof PluginDefinitionError)
      for (const problem of [
        'its version "one" is not semver',
        'it has no name',
        'it declares no capabilities',
        'setting "indexName" has no title',
      ]) {
        assert.ok(error.message.includes(problem), `${problem} in ${error.message}`)
      }
      return true
    })
  })

  it('a settings schema that does not compile, a bad id or category is refused', async () => {
    const broken = searchDemo()
    Object.assign(broken.settingsSchema.properties.indexName, { pattern: '([' })
    await refused({ 'search-demo': { definition: broken } }, /its settingsSchema does not compile/)
    await refused(
      { 'Search-Demo': { definition: searchDemo({ id: 'Search-Demo' }) } },
      /Plugin "Search-Demo" is invalid: its id must be lower-case letters, digits and dashes/,
    )
    await refused(
      { 'search-demo': { definition: searchDemo({ category: 'Search Things' }) } },
      /its category must be like "ai-provider"/,
    )
    await refused(
      { 'search-demo': { definition: searchDemo({ settingsSchema: { type: 'array' } }) } },
      /its settingsSchema must be an object schema with properties/,
    )
  })

  it('two plugins with one id cannot be registered together', () => {
    const demo = checkedPlugin('search-demo', searchDemo() as PluginDefinition, DEMO_README)
    assert.throws(() => createPluginRegistry([demo, demo]), /Two plugins have the id "search-demo"/)
  })
})

describe('plugin registry: settings', () => {
  const demo: Plugin = checkedPlugin('search-demo', searchDemo() as PluginDefinition, DEMO_README)
  const userId = '11111111-1111-4111-8111-111111111111'
  const otherUserId = '22222222-2222-4222-8222-222222222222'
  const workId = '33333333-3333-4333-8333-333333333333'
  const empty = { settings: {}, secretSettings: {} }

  function settingsWith(env: Record<string, string> = {}, key: Buffer = randomBytes(32)) {
    const { log, warnings } = silentLog()
    const settings = createPluginSettings({ envelope: createEnvelope(key), env: (name) => env[name], log })
    return { settings, warnings }
  }

  it('a secret is masked as •••• and its last 4 characters, or •••• alone when short', () => {
    assert.equal(SECRET_MASK, '••••')
    assert.equal(maskSecret('sk-0123456789abcdef'), '••••cdef')
    assert.equal(maskSecret('123456789012'), '••••9012')
    assert.equal(maskSecret('12345678901'), '••••')
    assert.equal(maskSecret(''), '••••')
    assert.ok(isMasked('••••cdef'))
    assert.ok(isMasked('••••'))
    assert.ok(!isMasked('sk-••••'))
    assert.ok(!isMasked(42))
  })

  it('merge seals secrets, null removes a setting, a masked value keeps the stored secret', () => {
    const { settings } = settingsWith()
    const owner = { kind: 'user', userId } as const
    const secret = 'sk-demo-0123456789abcdef'
    const first = settings.merge(demo, owner, empty, {
      settings: { indexName: 'docs', resultsPerPage: 20 },
      secrets: { apiKey: secret },
    })
    assert.deepEqual(first.settings, { indexName: 'docs', resultsPerPage: 20 })
    assert.ok(first.secretSettings.apiKey?.startsWith(ENVELOPE_PREFIX))
    assert.ok(!first.secretSettings.apiKey?.includes(secret))
    assert.deepEqual(settings.shown(demo, owner, first), {
      indexName: 'docs',
      resultsPerPage: 20,
      apiKey: '••••cdef',
    })

    const kept = settings.merge(demo, owner, first, {
      settings: { resultsPerPage: null },
      secrets: { apiKey: '••••cdef' },
    })
    assert.deepEqual(kept.settings, { indexName: 'docs' })
    assert.equal(kept.secretSettings.apiKey, first.secretSettings.apiKey)
    const removed = settings.merge(demo, owner, kept, { settings: {}, secrets: { apiKey: null } })
    assert.deepEqual(removed.secretSettings, {})
    assert.deepEqual(
      first.settings,
      { indexName: 'docs', resultsPerPage: 20 },
      'the level merged is not changed',
    )
  })

  it('a masked secret sent back passes the check whatever the secret’s own rules', () => {
    const schema = searchDemo().settingsSchema
    Object.assign(schema.properties.apiKey, { pattern: '^sk-demo-', minLength: 20 })
    const masked = checkSettingsChange(
      schema as PluginDefinition['settingsSchema'],
      {
        secretSettings: { apiKey: '••••cdef' },
      },
      'body',
    )
    assert.deepEqual(masked, { result: { settings: {}, secrets: { apiKey: '••••cdef' } }, issues: [] })
    const wrong = checkSettingsChange(
      schema as PluginDefinition['settingsSchema'],
      {
        secretSettings: { apiKey: 'sk-other-0123456789abcdef' },
      },
      'body',
    )
    assert.deepEqual(
      wrong.issues.map((issue) => issue.field),
      ['body.secretSettings.apiKey'],
    )
    const plain = checkSettingsChange(
      schema as PluginDefinition['settingsSchema'],
      {
        settings: { indexName: '••••cdef', resultsPerPage: '••••' },
      },
      'body',
    )
    assert.deepEqual(
      plain.issues.map((issue) => issue.field),
      ['body.settings.resultsPerPage'],
      'only secrets are masked',
    )
  })

  it('each setting resolves work > user > environment > default, each level removed in turn', () => {
    const { settings } = settingsWith({ SEARCH_DEMO_RESULTS: '25', SEARCH_DEMO_KEY: 'env-key' })
    const user = settings.merge(demo, { kind: 'user', userId }, empty, {
      settings: { indexName: 'user-index', resultsPerPage: 30 },
      secrets: { apiKey: 'user-key' },
    })
    const work = settings.merge(demo, { kind: 'work', workId }, empty, {
      settings: { indexName: 'work-index', resultsPerPage: 40 },
      secrets: { apiKey: 'work-key' },
    })
    const levels = { work: { workId, level: work }, user: { userId, level: user } }
    assert.deepEqual(settings.resolve(demo, levels), {
      indexName: 'work-index',
      resultsPerPage: 40,
      apiKey: 'work-key',
    })
    assert.deepEqual(settings.resolve(demo, { user: levels.user }), {
      indexName: 'user-index',
      resultsPerPage: 30,
      apiKey: 'user-key',
    })
    assert.deepEqual(settings.resolve(demo, {}), {
      indexName: 'items',
      resultsPerPage: 25,
      apiKey: 'env-key',
    })
    const { settings: noEnv } = settingsWith()
    assert.deepEqual(noEnv.resolve(demo, {}), { indexName: 'items', resultsPerPage: 10, apiKey: undefined })
    // A work level holding only some settings lets the others come from below.
    const partial = settings.merge(demo, { kind: 'work', workId }, empty, {
      settings: { resultsPerPage: 50 },
      secrets: {},
    })
    assert.deepEqual(settings.resolve(demo, { work: { workId, level: partial }, user: levels.user }), {
      indexName: 'user-index',
      resultsPerPage: 50,
      apiKey: 'user-key',
    })
  })

  it('an environment value that is not of the setting’s type counts as unset', () => {
    for (const raw of ['many', '2.5', 'true']) {
      const { settings } = settingsWith({ SEARCH_DEMO_RESULTS: raw })
      assert.equal(settings.resolve(demo, {}).resultsPerPage, 10, raw)
    }
  })

  it('a sealed value copied to another user, plugin or level cannot be opened: it counts as unset', () => {
    const { settings, warnings } = settingsWith()
    const secret = 'sk-demo-0123456789abcdef'
    const sealed = settings.merge(demo, { kind: 'user', userId }, empty, {
      settings: {},
      secrets: { apiKey: secret },
    })
    assert.equal(settings.resolve(demo, { user: { userId, level: sealed } }).apiKey, secret)

    const toOtherUser = settings.resolve(demo, { user: { userId: otherUserId, level: sealed } })
    assert.equal(toOtherUser.apiKey, undefined)
    assert.equal(settings.configured(demo, toOtherUser), false)
    assert.deepEqual(settings.shown(demo, { kind: 'user', userId: otherUserId }, sealed), {})

    const toWork = settings.resolve(demo, { work: { workId: userId, level: sealed } })
    assert.equal(toWork.apiKey, undefined, 'a user secret does not open as a work’s, even with the same id')

    const other = checkedPlugin(
      'other-demo',
      searchDemo({ id: 'other-demo' }) as PluginDefinition,
      DEMO_README,
    )
    assert.equal(settings.resolve(other, { user: { userId, level: sealed } }).apiKey, undefined)

    const renamed = { settings: {}, secretSettings: { indexName: sealed.secretSettings.apiKey! } }
    assert.equal(settings.resolve(demo, { user: { userId, level: renamed } }).indexName, 'items')

    assert.ok(warnings.length >= 3)
    assert.ok(!JSON.stringify(warnings).includes(secret), 'the warning does not carry the secret')
  })

  it('a secret sealed under another encryption key counts as unset', () => {
    const { settings: before } = settingsWith()
    const { settings: after } = settingsWith()
    const sealed = before.merge(demo, { kind: 'user', userId }, empty, {
      settings: {},
      secrets: { apiKey: 'sk-demo-0123456789abcdef' },
    })
    assert.equal(after.resolve(demo, { user: { userId, level: sealed } }).apiKey, undefined)
    assert.deepEqual(after.shown(demo, { kind: 'user', userId }, sealed), {})
  })

  it('configured: every required setting has a non-empty value at some level', () => {
    const { settings } = settingsWith()
    assert.equal(settings.configured(demo, { apiKey: 'k' }), true)
    assert.equal(settings.configured(demo, { apiKey: '' }), false)
    assert.equal(settings.configured(demo, { apiKey: undefined, indexName: 'docs' }), false)
    assert.equal(settings.configured(demo, {}), false)
    const optional = checkedPlugin(
      'search-demo',
      searchDemo({
        settingsSchema: { ...searchDemo().settingsSchema, required: undefined },
      }) as PluginDefinition,
      DEMO_README,
    )
    assert.equal(settings.configured(optional, {}), true)
    const { settings: withEnv } = settingsWith({ SEARCH_DEMO_KEY: 'env-key' })
    assert.equal(withEnv.configured(demo, withEnv.resolve(demo, {})), true)
  })
})
