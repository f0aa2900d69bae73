/**
 * The items screens in Chromium: review from the list (approve, reject with a reason, bulk), create and
 * edit with the API's field errors next to their fields, delete after confirming, the history of the
 * changes, and `Check link` against a site on 127.0.0.1. Every result is read back through the API.
 */
import assert from 'node:assert/strict'
import { createServer, type Server } from 'node:http'
import { after, before, describe, it } from 'node:test'
import { type ConsoleHarness, fieldError, screenshot, seriousViolations, startConsole } from './console.ts'

let h: ConsoleHarness
let site: Server
let siteUrl: string

interface Item {
  id: string
  slug: string
  name: string
  status: string
  url: string | null
  description: string | null
  reviewNote: string | null
  category: { id: string } | null
  tags: { id: string }[]
  link: { status: string; httpStatus: number | null; checkedAt: string | null }
}

before(async () => {
  site = createServer((req, res) => {
    res.writeHead(req.url === '/gone' ? 404 : 200, { 'content-type': 'text/html' })
    res.end('<!doctype html><title>Shop</title>')
  })
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve))
  const address = site.address()
  if (!address || typeof address === 'string') throw new Error('no port')
  siteUrl = `http://127.0.0.1:${address.port}`
  h = await startConsole({ env: { LINK_CHECK_ALLOWED_HOSTS: '127.0.0.1', LINK_CHECK_HOST_DELAY_MS: '0' } })
  await h.api('POST', '/api/admin/categories', { name: 'Coffee roasters', id: 'coffee-roasters' })
  await h.api('POST', '/api/admin/tags', { name: 'Espresso', id: 'espresso' })
})
after(async () => {
  await h?.close()
  await new Promise<void>((resolve) => site?.close(() => resolve()))
})

async function create(name: string, fields: Record<string, unknown> = {}): Promise<Item> {
  const res = await h.api<{ data: Item }>('POST', '/api/admin/items', { name, ...fields })
  assert.equal(res.status, 201, JSON.stringify(res.body))
  return res.body.data
}

async function read(id: string): Promise<{ status: number; item: Item }> {
  const res = await h.api<{ data: Item }>('GET', `/api/admin/items/${id}`)
  return { status: res.status, item: res.body?.data }
}

describe('admin console: items', () => {
  it('approves one pending item and rejects another with its reason, from the list', async () => {
    const first = await create('Blue Bottle Coffee', { status: 'pending' })
    const second = await create('Sightglass Coffee', { status: 'pending' })
    const page = await h.signedIn('/items?status=pending')
    const table = page.getByRole('table', { name: 'Items' })
    await table.getByRole('link', { name: 'Blue Bottle Coffee' }).waitFor()
    assert.deepEqual(await seriousViolations(page), [])
    await screenshot(page, 'items')

    await table.getByRole('button', { name: 'Approve Blue Bottle Coffee' }).click()
    await page.getByText('“Blue Bottle Coffee” approved').waitFor()
    assert.equal((await read(first.id)).item.status, 'published')
    await table.getByRole('link', { name: 'Blue Bottle Coffee' }).waitFor({ state: 'detached' })

    await table.getByRole('button', { name: 'Reject Sightglass Coffee' }).click()
    const dialog = page.getByRole('dialog', { name: 'Reject “Sightglass Coffee”' })
    await dialog.getByLabel('Reason').fill('Closed for good since the spring.')
    assert.deepEqual(await seriousViolations(page), [])
    await dialog.getByRole('button', { name: 'Reject' }).click()
    await page.getByText('“Sightglass Coffee” rejected').waitFor()
    const rejected = (await read(second.id)).item
    assert.equal(rejected.status, 'rejected')
    assert.equal(rejected.reviewNote, 'Closed for good since the spring.')
  })

  it('approves and deletes selected items in bulk, deleting only after confirming', async () => {
    const names = ['Bulk Alpha', 'Bulk Beta', 'Bulk Gamma']
    const made = []
    for (const name of names) made.push(await create(name, { status: 'pending' }))
    const page = await h.signedIn('/items?status=pending&search=Bulk')
    const table = page.getByRole('table', { name: 'Items' })
    await table.getByRole('link', { name: 'Bulk Gamma' }).waitFor()
    await table.getByLabel('Select Bulk Alpha').check()
    await table.getByLabel('Select Bulk Beta').check()
    await page
      .getByRole('region', { name: 'Bulk actions' })
      .getByRole('button', { name: 'Approve selected' })
      .click()
    await page.getByText('2 of 2 items approved').waitFor()
    assert.deepEqual(await Promise.all(made.map(async (item) => (await read(item.id)).item.status)), [
      'published',
      'published',
      'pending',
    ])

    await page.getByRole('tab', { name: /^All/ }).click()
    await table.getByRole('link', { name: 'Bulk Alpha' }).waitFor()
    await table.getByLabel('Select all on this page').check()
    await page
      .getByRole('region', { name: 'Bulk actions' })
      .getByRole('button', { name: 'Delete selected' })
      .click()
    const confirm = page.getByRole('dialog', { name: 'Delete 3 items?' })
    await confirm.getByRole('button', { name: 'Cancel' }).click()
    assert.equal((await read(made[0]!.id)).status, 200, 'nothing is deleted on Cancel')
    await page
      .getByRole('region', { name: 'Bulk actions' })
      .getByRole('button', { name: 'Delete selected' })
      .click()
    await confirm.getByRole('button', { name: 'Delete' }).click()
    await page.getByText('3 of 3 items deleted').waitFor()
    for (const item of made) assert.equal((await read(item.id)).status, 404)
  })

  it('creates an item: the API’s refusal is shown next to its field and the form keeps what was typed', async () => {
    const page = await h.signedIn('/items')
    await page.getByRole('link', { name: 'New item' }).click()
    await page.getByLabel('name', { exact: true }).fill('Stumptown Roasters')
    await page.getByLabel('url', { exact: true }).fill('not a web address')
    await page.getByLabel('categoryId').selectOption('coffee-roasters')
    await page.getByRole('group', { name: 'tagIds' }).getByLabel('Espresso').check()
    await page.getByLabel('description').fill('Portland roaster since 1999.')
    await page.getByRole('button', { name: 'Create item' }).click()
    assert.match(await fieldError(page, page.getByLabel('url', { exact: true })), /uri|url|http/i)
    assert.equal(await page.getByLabel('description').inputValue(), 'Portland roaster since 1999.')
    assert.deepEqual(await seriousViolations(page), [])

    await page.getByLabel('url', { exact: true }).fill(`${siteUrl}/shop`)
    await page.getByRole('button', { name: 'Create item' }).click()
    await page.getByRole('heading', { name: 'Stumptown Roasters', level: 1 }).waitFor()
    const id = /\/admin\/items\/([^/?]+)$/.exec(page.url())?.[1]
    assert.ok(id, page.url())
    const { item } = await read(id)
    assert.equal(item.url, `${siteUrl}/shop`)
    assert.equal(item.category?.id, 'coffee-roasters')
    assert.deepEqual(
      item.tags.map((tag) => tag.id),
      ['espresso'],
    )
    assert.equal(item.status, 'draft')
  })

  it('edits an item, shows the change in its history, checks its link, and deletes it after confirming', async () => {
    const item = await create('Heart Coffee', { url: `${siteUrl}/gone`, status: 'published' })
    const page = await h.signedIn(`/items/${item.id}`)
    await page.getByRole('heading', { name: 'Heart Coffee', level: 1 }).waitFor()
    await page.getByLabel('name', { exact: true }).fill('Heart Coffee Roasters')
    await page.getByLabel('city').fill('Portland')
    await page.getByRole('button', { name: 'Save' }).click()
    await page.getByText('“Heart Coffee Roasters” saved').waitFor()
    assert.equal((await read(item.id)).item.name, 'Heart Coffee Roasters')
    const history = page.getByRole('region', { name: 'History' })
    await history.getByText('name: Heart Coffee → Heart Coffee Roasters').waitFor()

    // The link answers 404: one failed check, not yet `broken` (that takes LINK_CHECK_FAILURES in a row).
    const health = page.getByRole('region', { name: 'Link health' })
    await health.getByRole('button', { name: 'Check link' }).click()
    await health.getByText('HTTP 404').waitFor()
    const checked = (await read(item.id)).item.link
    assert.equal(checked.httpStatus, 404)
    assert.ok(checked.checkedAt)
    assert.deepEqual(await seriousViolations(page), [])
    await screenshot(page, 'item')

    await page.getByRole('button', { name: 'Delete' }).first().click()
    await page
      .getByRole('dialog', { name: 'Delete this item?' })
      .getByRole('button', { name: 'Delete' })
      .click()
    await page.getByRole('heading', { name: 'Items', level: 1 }).waitFor()
    assert.equal((await read(item.id)).status, 404)
  })

  it('rejects an item from its own page with a reason, shown on the page and kept by the API', async () => {
    const item = await create('Counter Culture', { status: 'pending' })
    const page = await h.signedIn(`/items/${item.id}`)
    await page.getByRole('heading', { name: 'Counter Culture', level: 1 }).waitFor()
    await page.getByRole('button', { name: 'Reject' }).click()
    const dialog = page.getByRole('dialog', { name: 'Reject “Counter Culture”' })
    await dialog.getByLabel('Reason').fill('A duplicate of an approved item.')
    await dialog.getByRole('button', { name: 'Reject' }).click()
    await page.getByText('Review note: A duplicate of an approved item.').waitFor()
    const { item: rejected } = await read(item.id)
    assert.equal(rejected.status, 'rejected')
    assert.equal(rejected.reviewNote, 'A duplicate of an approved item.')
  })

  it('says so when an item does not exist', async () => {
    const page = await h.signedIn('/items/3f6b2d1e-8a4c-4e7b-9d2f-1c5a7e9b3d60')
    await page.getByRole('heading', { name: 'Item not found' }).waitFor()
    await page.getByRole('link', { name: 'Back to the items' }).click()
    await page.getByRole('heading', { name: 'Items', level: 1 }).waitFor()
  })
})
