import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync } from 'node:fs'
import { availableParallelism, tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { ConfigError, configurationTable, loadConfig } from '../src/config.ts'

const root = fileURLToPath(new URL('../', import.meta.url))
const GUIDE = `${root}docs/configuration.md`
// shared/ sits beside the repository, here and on CI.
const CONTRACT = `${root}../shared/CONTRACT.md`
const TABLE_HEADER = '| Setting | Default | Meaning |'

/**
 * Settings CONTRACT.md names for features not built yet, with the work that brings them. A setting is
 * defined (and documented) only once something reads it.
 */
const PENDING_SETTINGS: Record<string, string> = {}

const VALID_KEY = 'ab'.repeat(32)
const VALID_JWT_SECRET = 'a-signing-secret-of-at-least-32-characters'

/** The ConfigError loadConfig throws for `env`, checked to be one line that names `setting`. */
function configErrorFor(env: Record<string, string>, setting: string): ConfigError {
  let caught: unknown
  try {
    loadConfig(env)
  } catch (error) {
    caught = error
  }
  assert.ok(caught instanceof ConfigError, `expected a ConfigError for ${JSON.stringify(env)}`)
  assert.equal(caught.setting, setting)
  assert.ok(caught.message.includes(setting), `"${caught.message}" should name ${setting}`)
  assert.ok(!caught.message.includes('\n'), `"${caught.message}" should be one line`)
  return caught
}

/** Setting names in the first column of a Markdown table's rows. */
function firstColumnNames(rows: string[]): string[] {
  return rows.flatMap((row) => {
    const name = /^\|\s*`([A-Z][A-Z0-9_]*)`\s*\|/.exec(row)?.[1]
    return name ? [name] : []
  })
}

/** Backticked UPPER_CASE names (also `NAME=value`) anywhere in the text. */
function backtickedNames(text: string): string[] {
  return [...text.matchAll(/`([A-Z][A-Z0-9_]*[A-Z0-9])(?:=[^`]*)?`/g)].map((match) => match[1]!)
}

/** The lines of the `## heading` section, up to the next `## `. */
function section(markdown: string, heading: string): string[] {
  const lines = markdown.split('\n')
  const start = lines.findIndex((line) => line.trim() === `## ${heading}`)
  assert.notEqual(start, -1, `no "## ${heading}" section`)
  const end = lines.findIndex((line, index) => index > start && line.startsWith('## '))
  return lines.slice(start + 1, end === -1 ? undefined : end)
}

/** The cells of a Markdown table row, trimmed, so padding added by a formatter does not matter. */
const cells = (line: string) =>
  line
    .trim()
    .replace(/^\||\|$/g, '')
    .split('|')
    .map((cell) => cell.trim())

/** The rows of the first table whose header is the configuration table's, or undefined. */
function configurationRows(markdown: string): string[] | undefined {
  const lines = markdown.split('\n').map((line) => line.trim())
  const header = cells(TABLE_HEADER).join('|')
  const start = lines.findIndex((line) => line.startsWith('|') && cells(line).join('|') === header)
  if (start === -1) return undefined
  const rows: string[] = []
  for (const line of lines.slice(start + 1)) {
    if (!line.startsWith('|')) break
    rows.push(line)
  }
  return rows
}

const settingNames = () => firstColumnNames(configurationTable().split('\n'))

describe('configuration defaults', () => {
  it('an empty environment gives a local instance on the default ports and folder', () => {
    const config = loadConfig({})
    assert.equal(config.platformPort, 3000)
    assert.equal(config.directoryPort, 3001)
    assert.equal(config.host, '127.0.0.1')
    assert.equal(config.dataDir, './data')
    assert.equal(config.appUrl, 'http://localhost:3001')
    assert.equal(config.isProduction, false)
    assert.equal(config.trustProxy, false)
    assert.equal(config.redisUrl, undefined)
    assert.equal(config.platformDbUrl, undefined)
    assert.equal(config.directoryDbUrl, undefined)
  })

  it('APP_URL follows DIRECTORY_PORT unless set', () => {
    assert.equal(loadConfig({ DIRECTORY_PORT: '4001' }).appUrl, 'http://localhost:4001')
    assert.equal(
      loadConfig({ DIRECTORY_PORT: '4001', APP_URL: 'https://directory.example.com' }).appUrl,
      'https://directory.example.com',
    )
  })

  it('CORS_ORIGINS is unset by default (the service decides), and a list is read as origins', () => {
    assert.equal(loadConfig({}).corsOrigins, undefined)
    assert.deepEqual(
      loadConfig({ CORS_ORIGINS: ' https://app.example.com , HTTP://LOCALHOST:5173/,https://b.example:443' })
        .corsOrigins,
      ['https://app.example.com', 'http://localhost:5173', 'https://b.example'],
    )
  })

  it('LOG_FORMAT is unset by default (pretty on a terminal), json or pretty when set', () => {
    assert.equal(loadConfig({}).logFormat, undefined)
    assert.equal(loadConfig({ LOG_FORMAT: 'json' }).logFormat, 'json')
    assert.equal(loadConfig({ LOG_FORMAT: 'pretty' }).logFormat, 'pretty')
  })

  it('REDIS_KEY_PREFIX is curio: by default, and taken as set (trimmed)', () => {
    assert.equal(loadConfig({}).redisKeyPrefix, 'curio:')
    assert.equal(loadConfig({ REDIS_KEY_PREFIX: ' curio-staging: ' }).redisKeyPrefix, 'curio-staging:')
    assert.equal(loadConfig({ REDIS_KEY_PREFIX: '{tenant-7}:curio:' }).redisKeyPrefix, '{tenant-7}:curio:')
  })

  it('rate limits apply to localhost unless the bypass is turned on', () => {
    assert.equal(loadConfig({}).rateLimitBypassLocalhost, false)
    assert.equal(loadConfig({ RATE_LIMIT_BYPASS_LOCALHOST: 'true' }).rateLimitBypassLocalhost, true)
  })

  it('webhook delivery timing defaults are the contract’s', () => {
    const config = loadConfig({})
    assert.equal(config.webhookMaxConsecutiveFailures, 10)
    assert.equal(config.webhookTimeoutMs, 10_000)
    assert.equal(config.webhookRetryBaseMs, 30_000)
    assert.equal(config.webhookRetryMaxMs, 86_400_000)
    assert.deepEqual(config.webhookAllowedHosts, [])
  })

  it('deployment verification and dispatch defaults are the contract’s', () => {
    const config = loadConfig({})
    assert.equal(config.deployPollIntervalMs, 10_000)
    assert.equal(config.deployTimeoutMs, 780_000)
    assert.equal(config.deployNotFoundLimit, 18)
    assert.equal(config.deployDispatchRetryDelayMs, 3000)
    assert.equal(config.deployBatchConcurrency, 5)
    assert.equal(config.deployBatchDelayMs, 2000)
  })

  it('sponsor-ad checkout uses stripe and location features are on by default', () => {
    const config = loadConfig({})
    assert.equal(config.paymentProvider, 'stripe')
    assert.equal(config.locationEnabled, true)
  })

  it('a blank value counts as unset', () => {
    const config = loadConfig({ PLATFORM_PORT: '  ', APP_URL: '', TRUST_PROXY: '' })
    assert.equal(config.platformPort, 3000)
    assert.equal(config.appUrl, 'http://localhost:3001')
    assert.equal(config.trustProxy, false)
  })

  it('production with both required secrets loads', () => {
    const config = loadConfig({
      NODE_ENV: 'production',
      JWT_SECRET: VALID_JWT_SECRET,
      PLATFORM_ENCRYPTION_KEY: VALID_KEY.toUpperCase(),
    })
    assert.equal(config.isProduction, true)
    assert.equal(config.platformEncryptionKey, VALID_KEY)
  })

  it('production without PLATFORM_ENCRYPTION_KEY loads: what needs the key answers 400 (webhooks tests)', () => {
    const config = loadConfig({ NODE_ENV: 'production', JWT_SECRET: VALID_JWT_SECRET })
    assert.equal(config.isProduction, true)
    assert.equal(config.platformEncryptionKey, undefined)
  })
})

describe('configuration errors name the setting in one line', () => {
  const cases: { name: string; env: Record<string, string>; setting: string }[] = [
    { name: 'a port that is not a number', env: { PLATFORM_PORT: 'abc' }, setting: 'PLATFORM_PORT' },
    { name: 'a port above 65535', env: { PLATFORM_PORT: '70000' }, setting: 'PLATFORM_PORT' },
    { name: 'a directory port below 0', env: { DIRECTORY_PORT: '-1' }, setting: 'DIRECTORY_PORT' },
    { name: 'a metrics port above 65535', env: { METRICS_PORT: '70000' }, setting: 'METRICS_PORT' },
    {
      name: 'a metrics flag that is not true or false',
      env: { METRICS_ENABLED: 'sometimes' },
      setting: 'METRICS_ENABLED',
    },
    {
      name: 'a trust-proxy value that is none of the forms',
      env: { TRUST_PROXY: 'maybe' },
      setting: 'TRUST_PROXY',
    },
    {
      name: 'production without JWT_SECRET',
      env: { NODE_ENV: 'production', PLATFORM_ENCRYPTION_KEY: VALID_KEY },
      setting: 'JWT_SECRET',
    },
    {
      name: 'an encryption key that is not 64 hex characters',
      env: { PLATFORM_ENCRYPTION_KEY: 'abc123' },
      setting: 'PLATFORM_ENCRYPTION_KEY',
    },
    {
      name: 'an encryption key of 64 characters that are not all hex',
      env: { PLATFORM_ENCRYPTION_KEY: 'zz'.repeat(32) },
      setting: 'PLATFORM_ENCRYPTION_KEY',
    },
    { name: 'a JWT secret shorter than 32 characters', env: { JWT_SECRET: 'short' }, setting: 'JWT_SECRET' },
    {
      name: 'a database URL that is not Postgres',
      env: { DATABASE_URL: 'mysql://x' },
      setting: 'DATABASE_URL',
    },
    {
      name: 'a per-service database URL that is not Postgres',
      env: { DIRECTORY_DATABASE_URL: 'http://x' },
      setting: 'DIRECTORY_DATABASE_URL',
    },
    { name: 'a Redis URL that is not redis:', env: { REDIS_URL: 'http://x' }, setting: 'REDIS_URL' },
    { name: 'an app URL with a path', env: { APP_URL: 'https://example.com/app' }, setting: 'APP_URL' },
    { name: 'an app URL that is not a URL', env: { APP_URL: 'not a url' }, setting: 'APP_URL' },
    {
      name: 'an admin email without a password',
      env: { ADMIN_EMAIL: 'admin@example.com' },
      setting: 'ADMIN_PASSWORD',
    },
    {
      name: 'an admin password without an email',
      env: { ADMIN_PASSWORD: 'a good password' },
      setting: 'ADMIN_EMAIL',
    },
    {
      name: 'a bypass flag that is not true or false',
      env: { RATE_LIMIT_BYPASS_LOCALHOST: 'maybe' },
      setting: 'RATE_LIMIT_BYPASS_LOCALHOST',
    },
    {
      name: 'a CORS origin with a path',
      env: { CORS_ORIGINS: 'https://app.example.com/app' },
      setting: 'CORS_ORIGINS',
    },
    {
      name: 'a CORS origin that is not a URL',
      env: { CORS_ORIGINS: 'app.example.com' },
      setting: 'CORS_ORIGINS',
    },
    {
      name: 'a CORS origin among good ones that is a wildcard',
      env: { CORS_ORIGINS: 'https://app.example.com,*' },
      setting: 'CORS_ORIGINS',
    },
    {
      name: 'a CORS origin that is not http(s)',
      env: { CORS_ORIGINS: 'ftp://files.example' },
      setting: 'CORS_ORIGINS',
    },
    {
      name: 'a CORS origin with a query',
      env: { CORS_ORIGINS: 'https://app.example.com?x=1' },
      setting: 'CORS_ORIGINS',
    },
    { name: 'an unknown log format', env: { LOG_FORMAT: 'xml' }, setting: 'LOG_FORMAT' },
    { name: 'an unknown payment provider', env: { PAYMENT_PROVIDER: 'paypal' }, setting: 'PAYMENT_PROVIDER' },
    {
      name: 'a retry ceiling below the retry base',
      env: { WEBHOOK_RETRY_BASE_MS: '5000', WEBHOOK_RETRY_MAX_MS: '1000' },
      setting: 'WEBHOOK_RETRY_MAX_MS',
    },
  ]
  for (const { name, env, setting } of cases) {
    it(`${name} is refused naming ${setting}`, () => {
      configErrorFor(env, setting)
    })
  }

  it('a wrong value is quoted back so the operator sees what was read', () => {
    const error = configErrorFor({ PLATFORM_PORT: 'abc' }, 'PLATFORM_PORT')
    assert.match(error.message, /"abc"/)
  })

  it('a URL of the wrong protocol names the ones the setting takes', () => {
    assert.equal(
      configErrorFor({ APP_URL: 'ftp://example.com' }, 'APP_URL').message,
      'Invalid configuration: APP_URL must be a URL starting with http: or https: (got "ftp:")',
    )
    assert.equal(
      configErrorFor({ DATABASE_URL: 'mysql://localhost/curio' }, 'DATABASE_URL').message,
      'Invalid configuration: DATABASE_URL must be a URL starting with postgres: or postgresql: (got "mysql:")',
    )
  })

  it('a malformed encryption key is not echoed in the message', () => {
    const error = configErrorFor({ PLATFORM_ENCRYPTION_KEY: 'secret-not-hex' }, 'PLATFORM_ENCRYPTION_KEY')
    assert.ok(!error.message.includes('secret-not-hex'))
  })

  it('a REDIS_KEY_PREFIX with a space, a glob character or more than 64 characters is refused', () => {
    for (const value of [
      'curio staging:',
      'curio*',
      'curio?',
      'curio[1]:',
      'curio\\',
      'é:',
      'x'.repeat(65),
    ]) {
      configErrorFor({ REDIS_KEY_PREFIX: value }, 'REDIS_KEY_PREFIX')
    }
  })

  it('WORKERS is 1 by default, a number, or auto for one per core; anything else is refused', () => {
    assert.equal(loadConfig({ DATA_DIR: 'memory' }).workers, 1)
    assert.equal(loadConfig({ DATA_DIR: 'memory', WORKERS: '4' }).workers, 4)
    assert.equal(loadConfig({ DATA_DIR: 'memory', WORKERS: 'auto' }).workers, availableParallelism())
    for (const value of ['0', '-1', '1.5', 'all', '257']) configErrorFor({ WORKERS: value }, 'WORKERS')
  })

  it('a MAPBOX_ACCESS_TOKEN that is not a Mapbox token is refused without being echoed; a real one loads', () => {
    for (const token of ['pk.secret-looking', 'pk.bm90IGpzb24.x', 'pk.eyJhIjoxfQ.x']) {
      const error = configErrorFor({ MAPBOX_ACCESS_TOKEN: token }, 'MAPBOX_ACCESS_TOKEN')
      assert.ok(!error.message.includes(token), error.message)
    }
    const token = `pk.${Buffer.from(JSON.stringify({ u: 'curio', a: 'x' })).toString('base64')}.sig`
    assert.equal(loadConfig({ DATA_DIR: 'memory', MAPBOX_ACCESS_TOKEN: token }).mapboxAccessToken, token)
  })
})

describe('TRUST_PROXY', () => {
  it('true trusts every hop', () => {
    assert.equal(loadConfig({ TRUST_PROXY: 'true' }).trustProxy, true)
  })

  it('false trusts none', () => {
    assert.equal(loadConfig({ TRUST_PROXY: 'false' }).trustProxy, false)
  })

  it('a number is a hop count', () => {
    assert.equal(loadConfig({ TRUST_PROXY: '2' }).trustProxy, 2)
  })

  it('a comma-separated list gives the trusted proxies’ addresses and CIDRs, trimmed', () => {
    assert.deepEqual(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 127.0.0.1' }).trustProxy, [
      '10.0.0.0/8',
      '127.0.0.1',
    ])
    assert.deepEqual(loadConfig({ TRUST_PROXY: '::1,fd00::/8' }).trustProxy, ['::1', 'fd00::/8'])
  })
})

describe('database URLs', () => {
  it('DATABASE_URL serves both services', () => {
    const config = loadConfig({ DATABASE_URL: 'postgres://db.example/curio' })
    assert.equal(config.platformDbUrl, 'postgres://db.example/curio')
    assert.equal(config.directoryDbUrl, 'postgres://db.example/curio')
  })

  it('a per-service URL overrides DATABASE_URL for that service only', () => {
    const platformOnly = loadConfig({
      DATABASE_URL: 'postgres://shared.example/curio',
      PLATFORM_DATABASE_URL: 'postgresql://platform.example/platform',
    })
    assert.equal(platformOnly.platformDbUrl, 'postgresql://platform.example/platform')
    assert.equal(platformOnly.directoryDbUrl, 'postgres://shared.example/curio')

    const directoryOnly = loadConfig({
      DATABASE_URL: 'postgres://shared.example/curio',
      DIRECTORY_DATABASE_URL: 'postgres://directory.example/directory',
    })
    assert.equal(directoryOnly.platformDbUrl, 'postgres://shared.example/curio')
    assert.equal(directoryOnly.directoryDbUrl, 'postgres://directory.example/directory')
  })

  it('a per-service URL alone leaves the other service embedded', () => {
    const config = loadConfig({ DIRECTORY_DATABASE_URL: 'postgres://directory.example/directory' })
    assert.equal(config.platformDbUrl, undefined)
    assert.equal(config.directoryDbUrl, 'postgres://directory.example/directory')
  })
})

describe('configuration documentation does not drift', () => {
  it('the generated table lists every setting once', () => {
    const names = settingNames()
    assert.ok(names.length > 40, `only ${names.length} settings parsed from configurationTable()`)
    assert.equal(new Set(names).size, names.length)
  })

  it('docs/configuration.md’s table is what `npm run cli -- config docs` prints', () => {
    assert.ok(
      existsSync(GUIDE),
      'docs/configuration.md is missing: add it with the table `npm run cli -- config docs` prints',
    )
    const rows = configurationRows(readFileSync(GUIDE, 'utf8'))
    assert.ok(
      rows,
      `docs/configuration.md has no configuration table (a table headed "${TABLE_HEADER}"): ` +
        'paste the output of `npm run cli -- config docs`',
    )
    const documented = new Set(firstColumnNames(rows))
    const settings = settingNames()
    const missing = settings.filter((name) => !documented.has(name))
    const stale = [...documented].filter((name) => !settings.includes(name))
    const message =
      'docs/configuration.md is out of date: replace its table with the output of `npm run cli -- config docs`'
    assert.deepEqual({ missing, stale }, { missing: [], stale: [] }, message)
    assert.equal([TABLE_HEADER, ...rows].join('\n'), configurationTable(), message)
  })

  it('the README links the configuration guide', () => {
    assert.match(readFileSync(`${root}README.md`, 'utf8'), /\]\(docs\/configuration\.md\)/)
  })

  // CONTRACT.md lives outside the repository; where it is absent there is nothing to compare with.
  if (existsSync(CONTRACT))
    it('every setting named in CONTRACT.md’s Running section and settings table is a setting, or pending', () => {
      const contract = readFileSync(CONTRACT, 'utf8')
      const running = section(contract, 'Running').filter((line) => /^\s*-|^\s{2,}\S/.test(line))
      const table = section(contract, 'Settings every deployment may need').filter((line) =>
        line.startsWith('|'),
      )
      const named = new Set([...backtickedNames(running.join('\n')), ...backtickedNames(table.join('\n'))])
      assert.ok(named.has('PLATFORM_PORT') && named.has('APP_URL'), 'CONTRACT.md parsing found too little')
      const settings = new Set(settingNames())
      assert.deepEqual(
        [...named].filter((name) => !settings.has(name) && !(name in PENDING_SETTINGS)),
        [],
      )
      // A pending setting arrives with its feature: then it leaves this list.
      assert.deepEqual(
        Object.keys(PENDING_SETTINGS).filter((name) => settings.has(name)),
        [],
        'a setting in PENDING_SETTINGS exists now: remove it from the list',
      )
    })
})

describe('the CLI on a configuration error', () => {
  it('start with PLATFORM_PORT=abc exits 1 with one line naming the setting and no stack', async () => {
    const main = fileURLToPath(new URL('../src/main.ts', import.meta.url))
    const child = spawn(process.execPath, [main, 'start'], {
      // A folder of its own: a developer's .env in the project never changes the test's settings.
      cwd: mkdtempSync(join(tmpdir(), 'curio-config-')),
      env: { PATH: process.env.PATH ?? '', PLATFORM_PORT: 'abc', DATA_DIR: 'memory' },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stderr = ''
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk
    })
    child.stdout.resume()
    const killer = setTimeout(() => child.kill('SIGKILL'), 10_000)
    const code = await new Promise<number | null>((resolve) =>
      child.on('exit', (exitCode) => resolve(exitCode)),
    )
    clearTimeout(killer)

    assert.equal(code, 1, `exit code ${code}, stderr: ${stderr}`)
    const lines = stderr.split('\n').filter((line) => line !== '')
    assert.equal(lines.length, 1, `expected one line on stderr, got:\n${stderr}`)
    assert.match(lines[0]!, /PLATFORM_PORT/)
    assert.doesNotMatch(stderr, /\n\s+at /)
  })
})
