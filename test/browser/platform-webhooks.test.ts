/**
 * The platform console's webhooks in Chromium, delivering to a local receiver: a subscription made in the
 * UI (a refused URL said at its field), its signing secret revealed and copied once and never shown again,
 * a test sent and its delivery in the log, a new work's delivery appearing in the open log without a
 * reload, a redelivery; a refused test's status and answer; pause, resume (a new subscription), a rotated
 * secret, delete; and a work's tab.
 */
import assert from 'node:assert/strict'
import { createHmac } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import type { Page } from 'playwright-core'
import { type Receiver, startReceiver } from '../fakes/receiver.ts'
import { fieldError, screenshot, seriousViolations } from './console.ts'
import { type ConsoleUser, type PlatformConsoleHarness, startPlatformConsole } from './platform.ts'

let h: PlatformConsoleHarness
let receiver: Receiver

before(async () => {
  h = await startPlatformConsole()
  receiver = await startReceiver()
})
after(async () => {
  await receiver?.close()
  await h?.close()
})

/** What the receiver got for `user`'s account, oldest first. */
const receivedBy = (user: ConsoleUser) => receiver.received.filter((one) => one.json.accountId === user.id)

const signs = (secret: string, raw: Buffer) =>
  `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`

/** Reads the secret a reveal dialog shows, copies it with its button and checks the clipboard has it. */
async function copySecret(page: Page, dialogName: string): Promise<string> {
  const dialog = page.getByRole('dialog', { name: dialogName })
  const secret = await dialog.getByRole('figure', { name: 'Signing secret' }).locator('code').textContent()
  assert.match(secret ?? '', /^whsec_[\w-]{20,}$/)
  await dialog.getByText('won’t be shown again').waitFor()
  await dialog.getByRole('button', { name: 'Copy signing secret' }).click()
  await dialog.getByRole('button', { name: 'Copied signing secret' }).waitFor()
  assert.equal(await page.evaluate('navigator.clipboard.readText()'), secret)
  return secret ?? ''
}

async function signedInWithClipboard(path: string, options: { user?: ConsoleUser; width?: number } = {}) {
  const signed = await h.signedIn(path, options)
  await signed.page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: h.url })
  return signed
}

describe('platform console: webhooks', () => {
  it('creates a subscription with its secret shown once, tests it, and shows new deliveries live', async () => {
    const { page, user } = await signedInWithClipboard('/webhooks')
    await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor()
    await page.getByRole('table', { name: 'Webhook subscriptions' }).getByText('No webhooks yet').waitFor()
    assert.deepEqual(await seriousViolations(page), [])

    await page.getByRole('button', { name: 'New webhook' }).click()
    const form = page.getByRole('dialog', { name: 'New webhook' })
    await form.getByLabel('Endpoint URL').fill('ftp://example.com/hooks')
    await form.getByRole('button', { name: 'Create webhook' }).click()
    assert.match(await fieldError(page, form.getByLabel('Endpoint URL')), /ftp/)
    await form.getByLabel('Endpoint URL').fill(receiver.url)
    assert.equal(await form.getByLabel('Scope').inputValue(), '')
    await form.getByRole('button', { name: 'Create webhook' }).click()
    const secret = await copySecret(page, 'Webhook created')
    assert.deepEqual(await seriousViolations(page), [])
    await page.getByRole('dialog', { name: 'Webhook created' }).getByRole('button', { name: 'Done' }).click()

    // The list shows the subscription, never its secret again.
    const row = page.getByRole('table', { name: 'Webhook subscriptions' }).getByRole('row', { name: /hooks/ })
    await row.getByText('Active').waitFor()
    await row.getByText('All the works you own').waitFor()
    assert.equal(await page.getByText(secret).count(), 0)
    assert.doesNotMatch(await page.content(), /whsec_/)

    await row.getByRole('link', { name: receiver.url }).click()
    await page.getByRole('heading', { name: 'Webhook subscription', level: 1 }).waitFor()
    assert.doesNotMatch(await page.content(), /whsec_/)
    const log = page.getByRole('table', { name: 'Deliveries of this subscription' })
    await log.getByText('No deliveries yet').waitFor()

    await page.getByRole('button', { name: 'Send test' }).click()
    await page.getByText('Test delivered: the endpoint answered 200.').waitFor()
    const tested = log.getByRole('row').filter({ hasText: 'webhook.test' })
    await tested.getByText('Succeeded').waitFor()
    await tested.getByText('200 · Success').waitFor()
    const [test] = receivedBy(user)
    assert.equal(test?.json.event, 'webhook.test')
    assert.equal(test?.headers['x-service-signature-256'], signs(secret, test.raw))

    // A work created elsewhere: its delivery appears in the open log, without a reload.
    const url = page.url()
    const work = await h.api<{ id: string }>(user, 'POST', '/api/works', { name: 'Live work' })
    assert.equal(work.status, 201)
    const createdRow = log.getByRole('row').filter({ hasText: 'work.created' })
    await createdRow.getByText('Succeeded').waitFor()
    assert.equal(page.url(), url)
    const delivered = receivedBy(user).find((one) => one.json.event === 'work.created')
    assert.equal(delivered?.json.workId, work.body.id)

    // Its details name the delivery id the endpoint received, and show the body it got.
    await createdRow.getByRole('button', { name: /^Details/ }).click()
    const details = page.getByRole('dialog', { name: 'Delivery' })
    await details.getByText(String(delivered?.headers['x-service-delivery'])).waitFor()
    const shownBody = await details.getByRole('region', { name: 'Body sent' }).locator('pre').textContent()
    assert.deepEqual(JSON.parse(shownBody ?? ''), delivered?.json)
    assert.deepEqual(await seriousViolations(page), [])
    await details.getByRole('button', { name: 'Done' }).click()
    await details.waitFor({ state: 'hidden' })
    await screenshot(page, 'webhook-deliveries', 'console')

    // Redelivered: a new delivery of the same body.
    await createdRow.getByRole('button', { name: /^Redeliver/ }).click()
    await page.getByText('work.created queued again as a new delivery').waitFor()
    await log
      .getByRole('row')
      .filter({ hasText: 'work.created' })
      .filter({ hasText: 'Succeeded' })
      .nth(1)
      .waitFor()
    const again = receivedBy(user).filter((one) => one.json.event === 'work.created')
    assert.equal(again.length, 2)
    assert.equal(again[1]?.raw.toString(), again[0]?.raw.toString())
    assert.notEqual(again[1]?.headers['x-service-delivery'], again[0]?.headers['x-service-delivery'])

    // The account's log filters by status.
    await page.getByRole('link', { name: 'All webhooks' }).click()
    const all = page.getByRole('table', { name: 'Deliveries', exact: true })
    await all.getByRole('row').filter({ hasText: 'webhook.test' }).waitFor()
    assert.deepEqual(await seriousViolations(page), [])
    await screenshot(page, 'webhooks', 'console')
    await page.getByLabel('Status').selectOption('failed')
    await all.getByText('No deliveries match these filters.').waitFor()
    assert.match(page.url(), /status=failed/)
  })

  it('says a refused test, pauses, resumes as a new subscription, rotates the secret and deletes, at 375 px', async () => {
    const user = await h.user()
    const made = await h.api<{ id: string }>(user, 'POST', '/api/webhooks', { url: receiver.url })
    assert.equal(made.status, 200)
    const { page } = await signedInWithClipboard(`/webhooks/${made.body.id}`, { user, width: 375 })
    await page.getByRole('heading', { name: 'Webhook subscription', level: 1 }).waitFor()
    const width = await page.evaluate('document.documentElement.scrollWidth')
    assert.ok(Number(width) <= 375, `the page is ${width} px wide`)

    // A test the endpoint refuses: its status code and answer are said.
    receiver.next({ status: 500, body: 'boom: the database is down' })
    await page.getByRole('button', { name: 'Send test' }).click()
    const refused = page.getByRole('alert').filter({ hasText: 'The test was not accepted' })
    await refused.getByText(/HTTP 500.*boom: the database is down/).waitFor()
    await page.getByRole('row').filter({ hasText: 'webhook.test' }).getByText('Failed').waitFor()

    await page.getByRole('button', { name: 'Pause' }).click()
    await page
      .getByRole('dialog', { name: 'Pause this webhook?' })
      .getByRole('button', { name: 'Pause' })
      .click()
    await page.getByText('Webhook paused').waitFor()
    await page.getByText('Paused', { exact: true }).waitFor()
    assert.equal(await page.getByRole('button', { name: 'Send test' }).count(), 0)
    const paused = await h.api<{ webhooks: { status: string }[] }>(user, 'GET', '/api/webhooks')
    assert.deepEqual(
      paused.body.webhooks.map((one) => one.status),
      ['paused'],
    )

    await page.getByRole('button', { name: 'Resume' }).click()
    await page.getByRole('button', { name: 'Resume with a new secret' }).click()
    const resumedSecret = await copySecret(page, 'Webhook resumed')
    await page.getByRole('dialog', { name: 'Webhook resumed' }).getByRole('button', { name: 'Done' }).click()
    const resumed = await h.api<{ webhooks: { id: string; status: string }[] }>(user, 'GET', '/api/webhooks')
    assert.equal(resumed.body.webhooks.length, 1)
    const [current] = resumed.body.webhooks
    assert.equal(current?.status, 'active')
    assert.notEqual(current?.id, made.body.id)
    assert.match(page.url(), new RegExp(`/webhooks/${current?.id}$`))
    await page.getByText('Active', { exact: true }).waitFor()

    await page.getByRole('button', { name: 'Rotate secret' }).click()
    await page
      .getByRole('dialog', { name: 'Rotate the signing secret?' })
      .getByRole('button', { name: 'Rotate secret' })
      .click()
    const rotated = await copySecret(page, 'New signing secret')
    assert.notEqual(rotated, resumedSecret)
    await page
      .getByRole('dialog', { name: 'New signing secret' })
      .getByRole('button', { name: 'Done' })
      .click()
    await page.getByRole('button', { name: 'Send test' }).click()
    await page.getByText('Test delivered: the endpoint answered 200.').waitFor()
    const test = receivedBy(user).at(-1)
    assert.equal(test?.headers['x-service-signature-256'], signs(rotated, test?.raw ?? Buffer.alloc(0)))

    await page.getByRole('button', { name: 'Delete' }).click()
    await page.getByRole('button', { name: 'Delete webhook' }).click()
    await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor()
    await page.getByText('No webhooks yet').waitFor()
    const left = await h.api<{ webhooks: unknown[] }>(user, 'GET', '/api/webhooks')
    assert.deepEqual(left.body.webhooks, [])
  })

  it('a work’s tab lists the subscriptions to its events and makes one for it', async () => {
    const user = await h.user()
    const work = await h.api<{ id: string }>(user, 'POST', '/api/works', { name: 'Hooked work' })
    await h.api(user, 'POST', '/api/webhooks', { url: `${receiver.url}/everything` })
    const { page } = await signedInWithClipboard(`/works/${work.body.id}/webhooks`, { user })
    await page.getByRole('heading', { name: 'Webhooks', level: 2 }).waitFor()
    const table = page.getByRole('table', { name: 'Webhooks of Hooked work' })
    await table.getByText('No webhooks for this work yet').waitFor()
    await page.getByText('Your account-wide subscription receives them too').waitFor()

    await page.getByRole('button', { name: 'New webhook for this work' }).click()
    const form = page.getByRole('dialog', { name: 'New webhook' })
    await form.getByText('the events of “Hooked work” only').waitFor()
    await form.getByLabel('Endpoint URL').fill(`${receiver.url}/work`)
    await form.getByRole('button', { name: 'Create webhook' }).click()
    await copySecret(page, 'Webhook created')
    await page.getByRole('dialog', { name: 'Webhook created' }).getByRole('button', { name: 'Done' }).click()
    await table.getByRole('link', { name: `${receiver.url}/work` }).waitFor()
    assert.equal(await table.getByRole('link', { name: `${receiver.url}/everything` }).count(), 0)
    assert.deepEqual(await seriousViolations(page), [])
    await screenshot(page, 'work-webhooks', 'console')

    const listed = await h.api<{ webhooks: { url: string; workId: string | null }[] }>(
      user,
      'GET',
      '/api/webhooks',
    )
    assert.equal(listed.body.webhooks.find((one) => one.url.endsWith('/work'))?.workId, work.body.id)
    await table.getByRole('link', { name: `${receiver.url}/work` }).click()
    await page.getByRole('link', { name: 'Work “Hooked work”' }).waitFor()
  })
})
