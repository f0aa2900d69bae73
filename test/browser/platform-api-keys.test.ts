/**
 * The platform console's API keys in Chromium: a key made (a missing name said at its field), shown once and
 * copied, used by a script against the API, its last use in the list after a reload, then revoked, after
 * which the API refuses it.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { fieldError, screenshot, seriousViolations } from './console.ts'
import { type PlatformConsoleHarness, startPlatformConsole } from './platform.ts'

let h: PlatformConsoleHarness

before(async () => {
  h = await startPlatformConsole()
})
after(async () => {
  await h?.close()
})

/** `GET /api/works` as a script holding `key` sends it. */
const worksWith = (key: string, header: 'authorization' | 'x-api-key' = 'authorization') =>
  fetch(`${h.url}/api/works`, {
    headers: { [header]: header === 'authorization' ? `Bearer ${key}` : key },
  }).then((res) => res.status)

describe('platform console: API keys', () => {
  it('creates a key shown once, which works until it is revoked', async () => {
    const { page } = await h.signedIn('/api-keys')
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: h.url })
    await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor()
    const table = page.getByRole('table', { name: 'Your API keys' })
    await table.getByText('No API keys yet').waitFor()
    assert.deepEqual(await seriousViolations(page), [])

    await page.getByRole('button', { name: 'New API key' }).click()
    const form = page.getByRole('dialog', { name: 'New API key' })
    await form.getByLabel('Name').fill('   ')
    await form.getByRole('button', { name: 'Create key' }).click()
    assert.ok(await fieldError(page, form.getByLabel('Name')))
    await form.getByLabel('Name').fill('CI deploys')
    await form.getByLabel('Expires').selectOption({ label: 'In 90 days' })
    await form.getByRole('button', { name: 'Create key' }).click()

    const reveal = page.getByRole('dialog', { name: 'API key created' })
    const key = (await reveal.getByRole('figure', { name: 'API key' }).locator('code').textContent()) ?? ''
    assert.match(key, /^svc_live_[0-9a-f]{64}$/)
    await reveal.getByText('won’t be shown again').waitFor()
    await reveal.getByRole('button', { name: 'Copy API key' }).click()
    await reveal.getByRole('button', { name: 'Copied API key' }).waitFor()
    assert.equal(await page.evaluate('navigator.clipboard.readText()'), key)
    assert.deepEqual(await seriousViolations(page), [])
    await reveal.getByRole('button', { name: 'Done' }).click()

    // Listed by its prefix, never in full; not used yet.
    const row = table.getByRole('row', { name: /CI deploys/ })
    await row.getByText(`${key.slice(0, 12)}…`).waitFor()
    assert.equal(await row.getByRole('cell').nth(2).textContent(), 'Never')
    assert.equal(await page.getByText(key).count(), 0)

    // A script uses it, either way the API takes it.
    assert.equal(await worksWith(key), 200)
    assert.equal(await worksWith(key, 'x-api-key'), 200)
    await page.reload()
    await row.waitFor()
    assert.notEqual(await row.getByRole('cell').nth(2).textContent(), 'Never')
    assert.doesNotMatch(await page.content(), new RegExp(key))
    assert.deepEqual(await seriousViolations(page), [])
    await screenshot(page, 'api-keys', 'console')

    await row.getByRole('button', { name: 'Revoke CI deploys' }).click()
    await page
      .getByRole('dialog', { name: 'Revoke this API key?' })
      .getByRole('button', { name: 'Revoke key' })
      .click()
    await page.getByText('“CI deploys” revoked').waitFor()
    await table.getByText('No API keys yet').waitFor()
    assert.equal(await worksWith(key), 401)
    assert.equal(await worksWith(key, 'x-api-key'), 401)
  })
})
