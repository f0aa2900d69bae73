/**
 * Messages in Chromium: what people sent through the contact form (a visitor's and a signed-in member's),
 * emailed through a stand-in SMTP server on 127.0.0.1 (one refused, one taken) or kept without email;
 * search that survives a reload, the mail status filter, a message opened with its text and its reply
 * link, the `contact_message` notification's link to it, and the screen at a phone's width.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { type SmtpFake, startSmtpFake } from '../fakes/smtp.ts'
import { until } from '../helpers/apps.ts'
import { type ConsoleHarness, screenshot, seriousViolations, startConsole } from './console.ts'

interface ContactMessage {
  id: string
  name: string
  email: string
  subject: string | null
  message: string
  userId: string | null
  mail: { status: 'not_configured' | 'pending' | 'sent' | 'failed'; attempts: number; error: string | null }
}
interface Listed {
  data: ContactMessage[]
  meta: { total: number }
}

let h: ConsoleHarness
let smtp: SmtpFake
/** The messages sent in `before`, by who sent them. */
const sent: Record<'grace' | 'ada' | 'ann' | 'linus', string> = { grace: '', ada: '', ann: '', linus: '' }
let memberId = ''

const ADA_TEXT =
  'Hello!\nHave you seen Analytical Roasters in Lisbon? They roast in small batches near the river.\n\nThey deserve a place in the atlas.'

/** Posts to the contact form as the site does: with its Origin, and a member's cookie when given. */
async function contact(payload: Record<string, string>, cookie?: string): Promise<string> {
  const res = await fetch(`${h.url}/api/contact`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: h.url, ...(cookie ? { cookie } : {}) },
    body: JSON.stringify(payload),
  })
  assert.equal(res.status, 201, await res.clone().text())
  return ((await res.json()) as { data: { id: string } }).data.id
}

async function mailStatusOf(id: string): Promise<string> {
  const res = await h.api<{ data: ContactMessage }>('GET', `/api/admin/contact-messages/${id}`)
  assert.equal(res.status, 200)
  return res.body.data.mail.status
}

async function setContactEmail(contactEmail: string | null) {
  const res = await h.api('PUT', '/api/admin/settings', { site: { name: 'Coffee Atlas', contactEmail } })
  assert.equal(res.status, 200, JSON.stringify(res.body))
}

before(async () => {
  smtp = await startSmtpFake()
  h = await startConsole({
    env: {
      SMTP_URL: smtp.url,
      SMTP_FROM: 'Coffee Atlas <no-reply@coffee-atlas.test>',
      SMTP_RETRY_BASE_MS: '10',
      SMTP_MAX_ATTEMPTS: '2',
      SMTP_TIMEOUT_MS: '5000',
    },
  })

  // With a contact address: one message the mail server refuses for good, one it takes.
  await setContactEmail('team@coffee-atlas.test')
  smtp.refuse(1, 550)
  sent.grace = await contact({
    name: 'Grace Hopper',
    email: 'grace@example.com',
    subject: 'Listing update for Blue Bottle',
    message: 'Blue Bottle moved to 300 Webster Street last month; the atlas still shows the old address.',
  })
  await until(async () => (await mailStatusOf(sent.grace)) === 'failed', 'the refused message failed')
  sent.ada = await contact({
    name: 'Ada Lovelace',
    email: 'ada+atlas@example.com',
    subject: 'A roaster you are missing',
    message: ADA_TEXT,
  })
  await until(async () => (await mailStatusOf(sent.ada)) === 'sent', 'the message was emailed')

  // Without one: kept here only, from a signed-in member and from a visitor with no subject.
  await setContactEmail(null)
  const email = `ann-${Date.now()}@example.com`
  const registered = await fetch(`${h.url}/api/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: h.url },
    body: JSON.stringify({ name: 'Ann Member', email, password: 'member-password-1' }),
  })
  assert.ok(registered.status < 300, await registered.clone().text())
  const cookie = registered.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ')
  sent.ann = await contact(
    {
      name: 'Ann Member',
      email,
      subject: 'Can I edit my listing?',
      message: 'I submitted Sightglass Coffee yesterday and spelled the street wrong. Can I fix it myself?',
    },
    cookie,
  )
  sent.linus = await contact({
    name: 'Linus',
    email: 'linus@example.com',
    message:
      'Is there an RSS feed? I would love to follow new roasters as they are added, without checking the site every week.',
  })
  const ann = await h.api<{ data: ContactMessage }>('GET', `/api/admin/contact-messages/${sent.ann}`)
  assert.ok(ann.body.data.userId, 'the member’s message names their account')
  memberId = ann.body.data.userId
})
after(async () => {
  await h?.close()
  await smtp?.close()
})

describe('admin console: messages', () => {
  it('searches, keeps the search over a reload, and opens a message with its text and reply link', async () => {
    const page = await h.signedIn('/')
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Messages' }).click()
    await page.getByRole('heading', { name: 'Messages', level: 1 }).waitFor()
    const table = page.getByRole('table', { name: 'Contact messages' })
    await table.getByRole('link', { name: 'A roaster you are missing' }).waitFor()
    await table.getByRole('link', { name: 'Listing update for Blue Bottle' }).waitFor()
    // A message with no subject is listed by its first words.
    await table.getByRole('link', { name: /^Is there an RSS feed\? I would love/ }).waitFor()
    assert.deepEqual(await seriousViolations(page), [])
    await screenshot(page, 'messages')

    await page.getByLabel('Search').fill('roaster')
    await table.getByRole('link', { name: 'Listing update for Blue Bottle' }).waitFor({ state: 'detached' })
    const found = await h.api<Listed>('GET', '/api/admin/contact-messages?search=roaster')
    assert.deepEqual(found.body.data.map((m) => m.id).sort(), [sent.ada, sent.linus].sort())
    assert.equal(await table.locator('tbody tr').count(), 2)
    assert.match(page.url(), /[?&]search=roaster(&|$)/)

    await page.reload()
    await table.getByRole('link', { name: 'A roaster you are missing' }).waitFor()
    assert.equal(await page.getByLabel('Search').inputValue(), 'roaster')
    assert.equal(await table.locator('tbody tr').count(), 2)

    await table.getByRole('link', { name: 'A roaster you are missing' }).click()
    const dialog = page.getByRole('dialog', { name: 'A roaster you are missing' })
    await dialog.getByText('They deserve a place in the atlas.').waitFor()
    assert.match(page.url(), new RegExp(`[?&]message=${sent.ada}(&|$)`))
    assert.match(page.url(), /[?&]search=roaster(&|$)/)
    assert.equal(await dialog.locator('.message-text').textContent(), ADA_TEXT)
    await dialog.getByText('Ada Lovelace', { exact: true }).waitFor()
    await dialog.getByText('ada+atlas@example.com', { exact: true }).waitFor()
    await dialog.getByText('A visitor, not signed in').waitFor()
    assert.equal(
      await dialog.getByRole('link', { name: 'Reply by email' }).getAttribute('href'),
      'mailto:ada+atlas@example.com?subject=Re%3A%20A%20roaster%20you%20are%20missing',
    )
    assert.deepEqual(await seriousViolations(page), [])

    // A reload opens it again; Escape closes it and keeps the search.
    await page.reload()
    await page
      .getByRole('dialog', { name: 'A roaster you are missing' })
      .getByText('They deserve a place in the atlas.')
      .waitFor()
    await page.keyboard.press('Escape')
    await dialog.waitFor({ state: 'hidden' })
    assert.doesNotMatch(page.url(), /message=/)
    assert.match(page.url(), /[?&]search=roaster(&|$)/)
  })

  it('filters by mail status and shows why a message was not delivered', async () => {
    const page = await h.signedIn('/messages')
    const table = page.getByRole('table', { name: 'Contact messages' })
    await table.getByRole('link', { name: 'A roaster you are missing' }).waitFor()

    await page.getByLabel('Mail status').selectOption({ label: 'Failed' })
    await table.getByRole('link', { name: 'A roaster you are missing' }).waitFor({ state: 'detached' })
    const failed = await h.api<Listed>('GET', '/api/admin/contact-messages?mailStatus=failed')
    assert.deepEqual(
      failed.body.data.map((m) => m.id),
      [sent.grace],
    )
    assert.equal(await table.locator('tbody tr').count(), 1)
    const row = table.getByRole('row').filter({ hasText: 'Grace Hopper' })
    await row.getByText('Failed', { exact: true }).waitFor()
    assert.match(page.url(), /[?&]mailStatus=failed(&|$)/)

    await row.getByRole('link', { name: 'Listing update for Blue Bottle' }).click()
    const dialog = page.getByRole('dialog', { name: 'Listing update for Blue Bottle' })
    await dialog.getByText('Every attempt to email it failed').waitFor()
    const reason = failed.body.data[0]?.mail.error
    assert.ok(reason)
    await dialog.getByText(reason).waitFor()
    await page.keyboard.press('Escape')
    await dialog.waitFor({ state: 'hidden' })

    await page.getByLabel('Mail status').selectOption({ label: 'Not emailed (email not set up)' })
    await table.getByRole('link', { name: 'Can I edit my listing?' }).waitFor()
    await table.getByRole('link', { name: 'Listing update for Blue Bottle' }).waitFor({ state: 'detached' })
    assert.equal(await table.locator('tbody tr').count(), 2)
    await page.getByLabel('Mail status').selectOption({ label: 'Sent' })
    await table.getByRole('link', { name: 'A roaster you are missing' }).waitFor()
    assert.equal(await table.locator('tbody tr').count(), 1)
    await page.reload()
    await table.getByRole('link', { name: 'A roaster you are missing' }).waitFor()
    assert.equal(await page.getByLabel('Mail status').inputValue(), 'sent')
  })

  it('opens a member’s message from its notification, which is then read', async () => {
    const page = await h.signedIn('/notifications')
    const table = page.getByRole('table', { name: 'Notifications' })
    const row = table.getByRole('row').filter({ hasText: 'Message from Ann Member' })
    const link = row.getByRole('link', { name: 'Open the message' })
    assert.equal(await link.getAttribute('href'), `/admin/messages?message=${sent.ann}`)
    await link.click()

    await page.getByRole('heading', { name: 'Messages', level: 1 }).waitFor()
    const dialog = page.getByRole('dialog', { name: 'Can I edit my listing?' })
    await dialog.getByText('spelled the street wrong').waitFor()
    assert.match(page.url(), new RegExp(`/admin/messages\\?message=${sent.ann}$`))
    // The member's account, linked to the users list.
    const account = dialog.getByRole('link', { name: 'Ann Member' })
    await account.waitFor()
    const user = await h.api<{ data: { email: string } }>('GET', `/api/admin/users/${memberId}`)
    assert.equal(
      await account.getAttribute('href'),
      `/admin/users?search=${encodeURIComponent(user.body.data.email)}`,
    )
    await dialog.getByText('Kept here only: email was not set up').waitFor()

    const notifications = await h.api<{
      data: { type: string; readAt: string | null; data: { messageId?: string } }[]
    }>('GET', '/api/admin/notifications?type=contact_message')
    const notice = notifications.body.data.find((n) => n.data.messageId === sent.ann)
    assert.ok(notice?.readAt, 'opening it from the notification read the notification')
  })

  it('names a message without a subject by its sender, and says so when a link names none', async () => {
    const page = await h.signedIn(`/messages?message=${sent.linus}`)
    const dialog = page.getByRole('dialog', { name: 'Message from Linus' })
    await dialog.getByText('without checking the site every week').waitFor()
    await dialog.getByText('None given').waitFor()
    assert.equal(
      await dialog.getByRole('link', { name: 'Reply by email' }).getAttribute('href'),
      'mailto:linus@example.com?subject=Re%3A%20your%20message',
    )

    await page.goto('/admin/messages?message=not-a-message')
    await page
      .getByRole('dialog', { name: 'Message' })
      .getByRole('alert')
      .filter({ hasText: 'This message is not in the directory' })
      .waitFor()
    const gone = await h.api('GET', '/api/admin/contact-messages/not-a-message')
    assert.equal(gone.status, 404)
  })

  it('fits a phone’s width, with a message open', async () => {
    const page = await h.signedIn(`/messages?message=${sent.ada}`, { width: 375 })
    await page
      .getByRole('dialog', { name: 'A roaster you are missing' })
      .getByText('They deserve a place in the atlas.')
      .waitFor()
    assert.equal(await page.evaluate('document.documentElement.scrollWidth - window.innerWidth'), 0)
    await page.keyboard.press('Escape')
    await page.getByRole('table', { name: 'Contact messages' }).getByText('Grace Hopper').waitFor()
    assert.equal(await page.evaluate('document.documentElement.scrollWidth - window.innerWidth'), 0)
  })
})
