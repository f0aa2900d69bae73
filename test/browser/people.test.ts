/**
 * The people screens in Chromium: clients (create, advanced search kept in the address, bulk change,
 * the detail page's edit), users (a taken email named next to its field, create, delete after
 * confirming), roles (create with a refusal, permissions saved to the API); each screen checked with
 * axe-core, dialogs open where there are some.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Page } from 'playwright-core'
import { type ConsoleHarness, screenshot, seriousViolations, startConsole } from './console.ts'

let h: ConsoleHarness
// One signed-in page for the file (signing in hashes a password: seconds on a busy machine); each test
// opens its screen with a page load of its own.
let page: Page
const run = Date.now().toString(36)

interface Client {
  id: string
  displayName: string
  email: string
  company: string | null
  status: string
  plan: string
  accountType: string
  jobTitle: string | null
}

async function createClient(body: Record<string, unknown>): Promise<Client> {
  const answer = await h.api<{ data: Client }>('POST', '/api/admin/clients', body)
  assert.equal(answer.status, 200, JSON.stringify(answer.body))
  return answer.body.data
}

async function findClient(email: string): Promise<Client | undefined> {
  const answer = await h.api<{ data: { clients: Client[] } }>(
    'GET',
    `/api/admin/clients?search=${encodeURIComponent(email)}`,
  )
  return answer.body.data.clients.find((client) => client.email === email)
}

before(async () => {
  h = await startConsole()
  const seeds = [
    { displayName: 'Ada Acme', company: 'Acme Rockets', plan: 'premium', location: 'London, UK' },
    { displayName: 'Grace Globex', company: 'Globex', plan: 'standard', location: 'Berlin, DE' },
    { displayName: 'Alan Initech', company: 'Initech', plan: 'free', location: 'London, UK' },
    { displayName: 'Edsger Acme', company: 'Acme Anvils', plan: 'premium', location: 'Berlin, DE' },
  ]
  for (const [i, seed] of seeds.entries())
    await createClient({
      ...seed,
      email: `seed-${i}-${run}@example.com`,
      accountType: i % 2 === 0 ? 'business' : 'individual',
      status: i === 3 ? 'trial' : 'active',
      industry: i < 2 ? 'Aerospace' : 'Software',
    })
  page = await h.signedIn('/')
})

/** Opens a screen of the console in the signed-in page. */
async function open(path: string): Promise<Page> {
  await page.goto(`/admin${path}`)
  return page
}
after(async () => {
  await h?.close()
})

describe('admin console: clients', () => {
  it('creates a client from the dialog, names a refused field next to it, and the API has it', async () => {
    await open('/clients')
    const table = page.getByRole('table', { name: 'Clients' })
    await table.getByRole('link', { name: 'Ada Acme', exact: true }).waitFor()
    await page.getByRole('button', { name: 'New client' }).click()
    const dialog = page.getByRole('dialog', { name: 'New client' })
    await dialog.getByLabel('Email').waitFor()
    assert.deepEqual(await seriousViolations(page), [])

    // An email that already has a client profile: the 409 is shown on the Email field, input kept.
    await dialog.getByLabel('Email').fill(`seed-1-${run}@example.com`)
    await dialog.getByLabel('Display name').fill('Margaret Hamilton')
    await dialog.getByRole('button', { name: 'Create client' }).click()
    const email = dialog.getByLabel('Email')
    await dialog.locator('.field-error').first().waitFor()
    assert.equal(await email.getAttribute('aria-invalid'), 'true')
    const describedBy = (await email.getAttribute('aria-describedby')) ?? ''
    assert.match((await page.locator(`[id="${describedBy.split(' ').pop()}"]`).textContent()) ?? '', /exist/i)
    assert.equal(await dialog.getByLabel('Display name').inputValue(), 'Margaret Hamilton')

    const address = `margaret-${run}@example.com`
    await email.fill(address)
    await dialog.getByLabel('Company').fill('MIT Instrumentation Lab')
    await dialog.getByLabel('Plan').selectOption('standard')
    await dialog.getByLabel('Account type').selectOption('enterprise')
    await dialog.getByLabel('Job title').fill('Director')
    await dialog.getByRole('button', { name: 'Create client' }).click()
    await page.getByText('Client “Margaret Hamilton” created').waitFor()
    await table.getByRole('link', { name: 'Margaret Hamilton', exact: true }).waitFor()

    const created = await findClient(address)
    assert.ok(created, 'the new client is listed by the API')
    const read = await h.api<{ data: Client }>('GET', `/api/admin/clients/${created.id}`)
    assert.equal(read.status, 200)
    assert.equal(read.body.data.displayName, 'Margaret Hamilton')
    assert.equal(read.body.data.company, 'MIT Instrumentation Lab')
    assert.equal(read.body.data.plan, 'standard')
    assert.equal(read.body.data.accountType, 'enterprise')
    assert.equal(read.body.data.jobTitle, 'Director')
    await screenshot(page, 'clients')
  })

  it('narrows the list with the advanced search, kept in the address through a reload', async () => {
    await open('/clients')
    const table = page.getByRole('table', { name: 'Clients' })
    await table.getByRole('link', { name: 'Grace Globex', exact: true }).waitFor()
    await page.getByText('Advanced search', { exact: true }).click()
    const form = page.getByRole('form', { name: 'Advanced search' })
    await form.getByLabel('Company contains').fill('acme')
    await form.getByLabel('Location contains').fill('London')
    await form.getByRole('button', { name: 'Apply advanced search' }).click()
    await table.getByRole('link', { name: 'Grace Globex', exact: true }).waitFor({ state: 'detached' })
    await table.getByRole('link', { name: 'Ada Acme', exact: true }).waitFor()
    assert.equal(
      await table.getByRole('link', { name: 'Edsger Acme', exact: true }).count(),
      0,
      'Berlin is left out',
    )
    const url = new URL(page.url())
    assert.equal(url.searchParams.get('companySearch'), 'acme')
    assert.equal(url.searchParams.get('locationSearch'), 'London')

    await page.reload()
    await table.getByRole('link', { name: 'Ada Acme', exact: true }).waitFor()
    assert.equal(await table.getByRole('link', { name: 'Grace Globex', exact: true }).count(), 0)
    assert.equal(await table.getByRole('link', { name: 'Edsger Acme', exact: true }).count(), 0)
    assert.equal(await form.getByLabel('Company contains').inputValue(), 'acme')
    assert.match((await page.locator('summary').textContent()) ?? '', /2 in use/)
    assert.deepEqual(await seriousViolations(page), [])

    await form.getByRole('button', { name: 'Clear advanced search' }).click()
    await table.getByRole('link', { name: 'Grace Globex', exact: true }).waitFor()
    assert.equal(new URL(page.url()).searchParams.get('companySearch'), null)
  })

  it('changes the plan of the selected clients after confirming, and the API has it', async () => {
    await open('/clients?search=seed-')
    const table = page.getByRole('table', { name: 'Clients' })
    await table.getByRole('link', { name: 'Alan Initech', exact: true }).waitFor()
    await table.getByLabel('Select Alan Initech').check()
    await table.getByLabel('Select Ada Acme').check()
    await page.getByRole('button', { name: 'Change selected' }).click()
    const dialog = page.getByRole('dialog', { name: 'Change 2 clients' })
    await dialog.getByLabel('Plan').selectOption('standard')
    assert.deepEqual(await seriousViolations(page), [])
    await dialog.getByRole('button', { name: 'Change 2 clients' }).click()
    await dialog.waitFor({ state: 'hidden' })
    for (const email of [`seed-0-${run}@example.com`, `seed-2-${run}@example.com`]) {
      const client = await findClient(email)
      assert.equal(client?.plan, 'standard', email)
    }
    assert.equal((await findClient(`seed-3-${run}@example.com`))?.plan, 'premium', 'the others stay')
  })

  it('edits a client on its page and shows its moderation', async () => {
    const client = await createClient({
      email: `linus-${run}@example.com`,
      displayName: 'Linus Kernel',
      company: 'Transmeta',
      industry: 'Operating systems',
      location: 'Portland, US',
      website: 'https://linus.example.com',
    })
    await open(`/clients/${client.id}`)
    await page.getByRole('heading', { name: 'Linus Kernel', level: 1 }).waitFor()
    await page.getByRole('heading', { name: 'Moderation' }).waitFor()
    await page.getByText('No moderation action has been taken on this client.').waitFor()
    const form = page.getByRole('form', { name: 'Edit' })
    await form.getByLabel('Username').fill('no spaces allowed')
    await form.getByRole('button', { name: 'Save' }).click()
    const username = form.getByLabel('Username')
    await form.locator('.field-error').first().waitFor()
    assert.equal(await username.getAttribute('aria-invalid'), 'true')

    await username.fill(`linus_${run}`)
    await form.getByLabel('Company').fill('Linux Foundation')
    await form.getByLabel('Status').selectOption('suspended')
    await form.getByRole('button', { name: 'Save' }).click()
    await page.getByText('“Linus Kernel” saved').waitFor()
    const read = await h.api<{ data: Client & { username: string } }>(
      'GET',
      `/api/admin/clients/${client.id}`,
    )
    assert.equal(read.body.data.company, 'Linux Foundation')
    assert.equal(read.body.data.status, 'suspended')
    assert.equal(read.body.data.username, `linus_${run}`)
    await page.locator('.status-suspended').first().waitFor()
    assert.deepEqual(await seriousViolations(page), [])
    await page.evaluate(() => window.scrollTo(0, 0))
    await screenshot(page, 'client')
  })

  it('deletes a client from its page after confirming', async () => {
    const client = await createClient({ email: `gone-${run}@example.com`, displayName: 'Soon Gone' })
    await open(`/clients/${client.id}`)
    await page.getByRole('heading', { name: 'Soon Gone', level: 1 }).waitFor()
    await page.getByRole('button', { name: 'Delete' }).click()
    const confirm = page.getByRole('dialog', { name: 'Delete this client?' })
    await confirm.getByRole('button', { name: 'Delete' }).click()
    await page.getByRole('heading', { name: 'Clients', level: 1 }).waitFor()
    const read = await h.api('GET', `/api/admin/clients/${client.id}`)
    assert.equal(read.status, 404)
  })

  it('fits a phone’s width', async () => {
    await page.setViewportSize({ width: 375, height: 800 })
    await open('/clients')
    await page.getByRole('table', { name: 'Clients' }).getByRole('link').first().waitFor()
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)
    assert.ok(overflow <= 0, `the page is ${overflow} px wider than the screen`)
    await page.setViewportSize({ width: 1280, height: 900 })
  })
})

describe('admin console: users', () => {
  it('names a taken email next to its field before and after sending, then creates the user', async () => {
    await open('/users')
    const table = page.getByRole('table', { name: 'Users' })
    await table.getByRole('row').nth(1).waitFor()
    await page.getByRole('button', { name: 'New user' }).click()
    const dialog = page.getByRole('dialog', { name: 'New user' })
    const email = dialog.getByLabel('Email')
    await dialog.getByLabel('Name', { exact: true }).fill('Katherine Johnson')
    await dialog.getByLabel('Username').fill(`kjohnson_${run}`)
    await dialog.getByLabel('Password').fill('orbital-mechanics-1')
    // The seeded clients each have an account: this email is taken.
    await email.fill(`seed-0-${run}@example.com`)
    await dialog.getByText('This email is already taken by another user.').waitFor()
    assert.equal(await email.getAttribute('aria-invalid'), 'true')
    assert.deepEqual(await seriousViolations(page), [])

    // Sent anyway, the API's refusal lands on the same field and the form keeps what was typed.
    await dialog.getByRole('button', { name: 'Create user' }).click()
    await dialog.getByRole('alert').waitFor()
    assert.equal(await email.getAttribute('aria-invalid'), 'true')
    assert.equal(await dialog.getByLabel('Name', { exact: true }).inputValue(), 'Katherine Johnson')

    const address = `katherine-${run}@example.com`
    await email.fill(address)
    await dialog.getByText('This email is already taken by another user.').waitFor({ state: 'detached' })
    await dialog.getByRole('button', { name: 'Create user' }).click()
    await page.getByText('User “Katherine Johnson” created').waitFor()
    await table.getByRole('cell', { name: new RegExp(address) }).waitFor()
    const listed = await h.api<{ data: { email: string; role: string; status: string; username: string }[] }>(
      'GET',
      `/api/admin/users?search=${encodeURIComponent(address)}`,
    )
    assert.equal(listed.body.data.length, 1)
    assert.equal(listed.body.data[0]?.username, `kjohnson_${run}`)
    assert.equal(listed.body.data[0]?.role, 'user')
    await screenshot(page, 'users')
  })

  it('edits a user’s role and status', async () => {
    const created = await h.api<{ data: { id: string } }>('POST', '/api/admin/users', {
      username: `dorothy_${run}`,
      email: `dorothy-${run}@example.com`,
      name: 'Dorothy Vaughan',
      password: 'fortran-teacher-1',
      role: 'user',
    })
    assert.equal(created.status, 201, JSON.stringify(created.body))
    await open(`/users?search=dorothy-${run}`)
    await page.getByRole('button', { name: 'Edit Dorothy Vaughan' }).click()
    const dialog = page.getByRole('dialog', { name: 'Edit “Dorothy Vaughan”' })
    await dialog.getByLabel('Role').selectOption('admin')
    await dialog.getByLabel('Status').selectOption('inactive')
    await dialog.getByRole('button', { name: 'Save' }).click()
    await page.getByText('“Dorothy Vaughan” saved').waitFor()
    const read = await h.api<{ data: { role: string; status: string } }>(
      'GET',
      `/api/admin/users/${created.body.data.id}`,
    )
    assert.equal(read.body.data.role, 'admin')
    assert.equal(read.body.data.status, 'inactive')
  })

  it('deletes a user after confirming, and keeps them when cancelled', async () => {
    const created = await h.api<{ data: { id: string } }>('POST', '/api/admin/users', {
      username: `mary_${run}`,
      email: `mary-${run}@example.com`,
      name: 'Mary Jackson',
      password: 'wind-tunnel-1',
      role: 'user',
    })
    assert.equal(created.status, 201, JSON.stringify(created.body))
    await open(`/users?search=mary-${run}`)
    const remove = page.getByRole('button', { name: 'Delete Mary Jackson' })
    await remove.click()
    const confirm = page.getByRole('dialog', { name: 'Delete this user?' })
    await confirm.getByRole('button', { name: 'Cancel' }).click()
    await confirm.waitFor({ state: 'hidden' })
    assert.equal((await h.api('GET', `/api/admin/users/${created.body.data.id}`)).status, 200)

    await remove.click()
    await confirm.getByRole('button', { name: 'Delete' }).click()
    await page.getByText('“Mary Jackson” deleted').waitFor()
    await page.getByText('No user matches these filters.').waitFor()
    assert.equal((await h.api('GET', `/api/admin/users/${created.body.data.id}`)).status, 404)
  })
})

describe('admin console: roles', () => {
  it('refuses a short name next to its field, then creates the role', async () => {
    await open('/roles')
    await page
      .getByRole('table', { name: 'Roles' })
      .getByRole('cell', { name: /^Administrator/ })
      .waitFor()
    await page.getByRole('button', { name: 'New role' }).click()
    const dialog = page.getByRole('dialog', { name: 'New role' })
    await dialog.getByLabel('Name', { exact: true }).fill('QA')
    await dialog.getByRole('button', { name: 'Create role' }).click()
    const name = dialog.getByLabel('Name', { exact: true })
    await dialog.locator('.field-error').first().waitFor()
    assert.equal(await name.getAttribute('aria-invalid'), 'true')
    await name.fill(`Reviewer ${run}`)
    await dialog.getByLabel('Description').fill('Reviews submitted items')
    await dialog.getByRole('button', { name: 'Create role' }).click()
    await page.getByText(`Role “Reviewer ${run}” created`).waitFor()
    const listed = await h.api<{ roles: { name: string; description: string; status: string }[] }>(
      'GET',
      '/api/admin/roles?limit=100',
    )
    const role = listed.body.roles.find((r) => r.name === `Reviewer ${run}`)
    assert.equal(role?.description, 'Reviews submitted items')
    assert.equal(role?.status, 'active')
  })

  it('changes a role’s permissions in the grouped checklist, and the API has them', async () => {
    const created = await h.api<{ data: { id: string } }>('POST', '/api/admin/roles', {
      name: `Content editor ${run}`,
      description: 'Edits items and tags',
    })
    assert.equal(created.status, 201, JSON.stringify(created.body))
    const id = created.body.data.id
    await h.api('PUT', `/api/admin/roles/${id}/permissions`, { permissions: ['items.read', 'comments.read'] })

    await open('/roles')
    await page.getByRole('button', { name: `Permissions of Content editor ${run}` }).click()
    const dialog = page.getByRole('dialog', { name: `Permissions of “Content editor ${run}”` })
    const items = dialog.getByRole('group', { name: 'Items', exact: true })
    await items.getByLabel('items.read', { exact: true }).waitFor()
    assert.equal(await items.getByLabel('items.read', { exact: true }).isChecked(), true)
    await items.getByLabel('items.update', { exact: true }).check()
    await items.getByLabel('items.review', { exact: true }).check()
    await dialog.getByRole('group', { name: 'Tags', exact: true }).getByLabel('All tags permissions').check()
    await dialog
      .getByRole('group', { name: 'Comments', exact: true })
      .getByLabel('comments.read', { exact: true })
      .uncheck()
    assert.deepEqual(await seriousViolations(page), [])
    await screenshot(page, 'roles')
    await dialog.getByRole('button', { name: 'Save permissions' }).click()
    await page.getByText(`“Content editor ${run}” now has 7 permissions`).waitFor()

    const read = await h.api<{ data: { permissions: string[] } }>('GET', `/api/admin/roles/${id}/permissions`)
    assert.deepEqual(
      [...read.body.data.permissions].sort(),
      [
        'items.read',
        'items.review',
        'items.update',
        'tags.create',
        'tags.delete',
        'tags.read',
        'tags.update',
      ].sort(),
    )
    const row = page.getByRole('row', { name: new RegExp(`Content editor ${run}`) })
    await row.getByRole('cell', { name: '7', exact: true }).waitFor()
  })
})
