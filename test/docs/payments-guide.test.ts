/**
 * docs/payments.md tells operators which events to subscribe to at each provider and which settings to
 * set: checked against what the webhook routes handle and what the configuration reads, so the guide
 * cannot drift from the code.
 */
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { configurationTable } from '../../src/config.ts'
import { PAYMENT_PROVIDERS } from '../../src/integrations/payments/registry.ts'
import { ERROR_CODES } from '../../src/lib/error-codes.ts'

const GUIDE = readFileSync(fileURLToPath(new URL('../../docs/payments.md', import.meta.url)), 'utf8')
const README = readFileSync(fileURLToPath(new URL('../../README.md', import.meta.url)), 'utf8')

/** The guide's section of one provider: from its heading to the next. */
function section(name: string): string {
  const start = GUIDE.indexOf(`### ${name}\n`)
  assert.ok(start >= 0, `the guide has a section for ${name}`)
  const end = GUIDE.indexOf('\n## ', start + 1)
  const next = GUIDE.indexOf('\n### ', start + 1)
  return GUIDE.slice(start, Math.min(...[end, next].filter((i) => i > 0), GUIDE.length))
}

/** A minimal body of `type` at `provider`, as the provider would send it. */
function bodyOf(provider: string, type: string): unknown {
  switch (provider) {
    case 'stripe':
      return { id: 'evt_1', type, data: { object: {} } }
    case 'lemonsqueezy':
      return { meta: { event_name: type }, data: { type: 'orders', attributes: { status: 'paid' } } }
    default:
      return { type, data: {} }
  }
}

describe('docs/payments.md', () => {
  it('is linked from the README', () => {
    assert.match(README, /\(docs\/payments\.md\)/)
  })

  for (const { id: provider, name, webhook } of PAYMENT_PROVIDERS) {
    const { setup } = webhook
    it(`lists ${name}'s webhook URL, secret and exactly the events the route handles`, () => {
      const text = section(name)
      assert.ok(text.includes(`/api/${provider}/webhook`))
      assert.ok(text.includes(setup.secret))
      const listed = new Set([...text.matchAll(/`([a-z_]+(?:\.[a-z_]+)+|[a-z]+_[a-z_]+)`/g)].map((m) => m[1]))
      for (const event of setup.events) {
        assert.ok(listed.has(event), `${name}: ${event} is in the guide`)
        const normalised = webhook.normalise(bodyOf(provider, event))
        assert.ok(normalised.ok && normalised.event.type !== 'ignored', `${name}: ${event} is handled`)
      }
    })
  }

  it('names only settings the configuration reads', () => {
    const known = new Set([...configurationTable().matchAll(/^\| `([A-Z0-9_]+)`/gm)].map((m) => m[1]))
    const named = [...GUIDE.matchAll(/`([A-Z][A-Z0-9_]{3,})`/g)].map((m) => m[1] as string)
    // Error codes are named too: they are the README's, not settings.
    const unknown = named.filter((name) => !known.has(name) && !(name in ERROR_CODES))
    assert.deepEqual([...new Set(unknown)], [])
  })
})
