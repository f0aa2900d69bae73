/**
 * Outside systems' SDKs load when their integration is first called, not when a process starts: a server
 * or test process that never calls Stripe does not pay for loading it. A child process records every
 * package Node resolves while it starts both services and answers a request on each, then while it calls
 * Stripe's client once.
 */
import assert from 'node:assert/strict'

import { describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { runNode } from '../helpers/run-node.ts'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const CHILD = 'test/fixtures/loaded-packages-child.ts'

/** The packages of outside systems' SDKs (and what only they use), by the name Node resolves. */
const SDK_PACKAGES = [
  'stripe',
  'openai',
  '@vercel/sdk',
  '@lemonsqueezy/lemonsqueezy.js',
  '@polar-sh/sdk',
  '@octokit/rest',
  '@octokit/plugin-retry',
  '@octokit/plugin-throttling',
  'bottleneck',
  'nodemailer',
  '@googlemaps/google-maps-services-js',
  'axios',
  '@mapbox/mapbox-sdk',
  'ioredis',
  'undici',
  'libsodium-wrappers',
  // The MCP SDK and its zod load at the first /mcp request.
  '@modelcontextprotocol/sdk',
  'zod',
]

interface Loaded {
  idle: string[]
  afterStripe: string[]
}

async function loadedPackages(): Promise<Loaded> {
  // Without TEST_REDIS_URL (with REDIS_URL set, loading ioredis at start is right), and as a process of its
  // own, not a test runner's child.
  const { TEST_REDIS_URL: _, NODE_TEST_CONTEXT: __, ...env } = process.env
  const { code, stdout, stderr } = await runNode(['--import=./src/lib/module-hooks.ts', CHILD], {
    cwd: ROOT,
    env,
  })
  assert.equal(code, 0, `the child process failed:\n${stderr}`)
  const reports = stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Partial<Loaded>)
  return Object.assign({ idle: [], afterStripe: [] }, ...reports)
}

describe('outside systems’ SDKs', () => {
  it('are not loaded by starting both services and answering requests, and are loaded when called', async () => {
    const { idle, afterStripe } = await loadedPackages()

    // The recording sees what is loaded, so an empty list cannot pass for a lazy one.
    assert.ok(idle.includes('fastify'), `fastify is not among the recorded packages: ${idle.join(', ')}`)
    assert.deepEqual(
      SDK_PACKAGES.filter((name) => idle.includes(name)),
      [],
      'SDKs loaded by a process that never called them',
    )
    assert.ok(afterStripe.includes('stripe'), 'calling the Stripe client loads the Stripe SDK')
  })
})
