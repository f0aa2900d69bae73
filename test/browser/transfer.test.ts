/**
 * Import / export in Chromium: an awesome list pasted, dry-run and applied; a CSV fetched from a URL; a
 * JSON file uploaded in create-only mode; the refusals next to their fields; a CSV download through the
 * page's link; a link check run started from the screen; a followed import that survives a reload.
 */
import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import { after, before, describe, it } from 'node:test'
import { type ConsoleHarness, fieldError, screenshot, seriousViolations, startConsole } from './console.ts'

let h: ConsoleHarness
let server: Server
let base: string

/** A small awesome list as people write them; line 9 is a bullet without a link. */
const teaList = () => `# Awesome Tea

> A curated list of tea merchants and the gear to brew with.

## Merchants

- [Postcard Teas](${base}/shop/postcard-teas) - Small-farm teas from a Mayfair shop.
* [Mei Leaf](${base}/shop/mei-leaf): Chinese teas and brewing lessons.
- A note that is not an item

## Brewing gear

- [Kyusu Works](${base}/shop/kyusu-works) - Japanese side-handle teapots.
`

const gearCsv = () =>
  [
    'name,url,description,category,status',
    `Hario Buono Kettle,${base}/shop/hario-buono,Gooseneck kettle for pour-over.,Kettles,published`,
    `Chemex Six Cup,${base}/shop/chemex,Glass pour-over brewer.,Brewers,published`,
  ].join('\r\n')

interface Item {
  id: string
  name: string
  slug: string
  status: string
  link: { status: string; failures: number }
}
interface ImportAnswer {
  id: string
  status: string
  dryRun: boolean
  result?: { created: number; skipped: number; errorCount: number }
}

before(async () => {
  server = createServer((req, res) => {
    const path = req.url ?? '/'
    if (path === '/gear.csv') {
      res.writeHead(200, { 'content-type': 'text/csv; charset=utf-8' })
      res.end(gearCsv())
    } else if (path.startsWith('/shop/')) {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      res.end('<!doctype html><title>Shop</title><p>Open</p>')
    } else {
      res.writeHead(404, { 'content-type': 'text/plain' })
      res.end('not found')
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  if (!address || typeof address === 'string') throw new Error('no port')
  base = `http://127.0.0.1:${address.port}`
  h = await startConsole({
    env: {
      IMPORT_ALLOWED_HOSTS: '127.0.0.1',
      IMPORT_MAX_BYTES: '20000',
      LINK_CHECK_ALLOWED_HOSTS: '127.0.0.1',
      LINK_CHECK_HOST_DELAY_MS: '0',
    },
  })
})
after(async () => {
  await h?.close()
  await new Promise<void>((resolve) => server?.close(() => resolve()))
})

async function items(search: string): Promise<Item[]> {
  const query = search ? `&search=${encodeURIComponent(search)}` : ''
  const answer = await h.api<{ data: Item[] }>('GET', `/api/admin/items?limit=100${query}`)
  assert.equal(answer.status, 200)
  return answer.body.data
}

describe('admin console: import / export', () => {
  it('pastes an awesome list, dry-runs it (counts and the unreadable line), applies it and follows it to the end', async () => {
    const page = await h.signedIn('/import-export')
    await page.getByRole('heading', { name: 'Import / export', level: 1 }).waitFor()
    assert.equal(await page.getByLabel('Format').inputValue(), 'markdown')
    await page.getByLabel('Content', { exact: true }).fill(teaList())
    await page.getByRole('button', { name: 'Dry run' }).click()

    const dry = page.getByRole('region', { name: 'Dry run report' })
    await dry.getByText('Nothing was written').waitFor()
    await dry.getByText(/It would give: 3 created, 0 updated, 0 unchanged, 0 skipped, 1 error\./).waitFor()
    assert.equal(
      await dry.locator('.figure', { hasText: 'Created' }).locator('.figure-value').textContent(),
      '3',
    )
    const errorRow = dry.getByRole('row', { name: /Line 9/ })
    assert.match((await errorRow.textContent()) ?? '', /does not start with a link/)
    assert.match(page.url(), /\/admin\/import-export\?import=[\w-]+$/)
    assert.deepEqual(await items('Kyusu'), [], 'a dry run writes nothing')
    assert.deepEqual(await seriousViolations(page), [])
    await screenshot(page, 'import-export')

    await dry.getByRole('button', { name: 'Apply' }).click()
    const real = page.getByRole('region', { name: 'Import report' })
    await real.getByText('The import is complete.').waitFor()
    await real.getByText('3 created, 0 updated, 0 unchanged, 0 skipped, 1 error.').waitFor()
    const progress = real.getByRole('progressbar', { name: 'Rows imported' })
    assert.equal(await progress.getAttribute('value'), '3')
    assert.equal(await progress.getAttribute('max'), '3')
    await real.getByText('3 of 3 rows').waitFor()
    await page.getByRole('status').filter({ hasText: 'Import completed: 3 created' }).waitFor()
    await screenshot(page, 'import-export-progress')

    const imported = await items('')
    for (const name of ['Postcard Teas', 'Mei Leaf', 'Kyusu Works'])
      assert.ok(
        imported.some((item) => item.name === name && item.status === 'published'),
        `${name} is imported`,
      )
    const past = page.getByRole('table', { name: 'Past imports' })
    await past.getByRole('row').nth(2).waitFor()
    assert.equal(await past.getByRole('row', { name: /Dry run/ }).count(), 1)
    assert.equal(await past.getByRole('row', { name: /^.*Import\s*Completed/ }).count(), 1)

    // Back to the dry run: it says it has been applied, and is not offered again.
    await page.goBack()
    const again = page.getByRole('region', { name: 'Dry run report' })
    await again.getByText('This dry run has been applied').waitFor()
    assert.equal(await again.getByRole('button', { name: 'Apply' }).count(), 0)
  })

  it('imports a CSV file fetched from a URL', async () => {
    const page = await h.signedIn('/import-export')
    await page.getByLabel('Format').selectOption('csv')
    await page.getByLabel('URL', { exact: true }).fill(`${base}/gear.csv`)
    await page.getByRole('button', { name: 'Dry run' }).click()
    const dry = page.getByRole('region', { name: 'Dry run report' })
    await dry.getByText(/It would give: 2 created, 0 updated, 0 unchanged, 0 skipped, 0 errors\./).waitFor()
    assert.ok(((await dry.textContent()) ?? '').includes(`${base}/gear.csv`), 'the report names the URL')
    await dry.getByRole('button', { name: 'Apply' }).click()
    await page.getByRole('region', { name: 'Import report' }).getByText('The import is complete.').waitFor()
    const found = await items('Chemex')
    assert.equal(found.length, 1)
    assert.equal(found[0]?.name, 'Chemex Six Cup')
    const detail = await h.api<{ data: { category: { name: string } | null } }>(
      'GET',
      `/api/admin/items/${found[0]?.id}`,
    )
    assert.equal(detail.body.data.category?.name, 'Brewers')
  })

  it('reads an uploaded JSON file, and create-only leaves an existing item alone', async () => {
    const existing = await h.api<{ data: Item }>('POST', '/api/admin/items', {
      name: 'Origami Dripper',
      url: `${base}/shop/origami`,
      description: 'As the admin wrote it.',
      status: 'published',
    })
    assert.equal(existing.status, 201)
    const file = {
      version: 1,
      items: [
        { name: 'Origami Dripper', description: 'As the file has it.' },
        { name: 'Kalita Wave', url: `${base}/shop/kalita-wave`, category: 'Brewers' },
      ],
    }
    const page = await h.signedIn('/import-export')
    await page.getByLabel('Upload a file').setInputFiles({
      name: 'brewers.json',
      mimeType: 'application/json',
      buffer: Buffer.from(JSON.stringify(file, null, 2)),
    })
    await page.getByText('“brewers.json”').waitFor()
    assert.equal(await page.getByLabel('Format').inputValue(), 'json')
    assert.match(await page.getByLabel('Content', { exact: true }).inputValue(), /Kalita Wave/)
    await page.getByLabel('Mode').selectOption('create-only')
    await page.getByRole('button', { name: 'Dry run' }).click()
    const dry = page.getByRole('region', { name: 'Dry run report' })
    await dry.getByText(/It would give: 1 created, 0 updated, 0 unchanged, 1 skipped/).waitFor()
    // A change to the form after the dry run asks for a new one before Apply.
    await page.getByLabel('Mode').selectOption('upsert')
    await dry.getByText('The form has changed since this dry run').waitFor()
    assert.equal(await dry.getByRole('button', { name: 'Apply' }).isDisabled(), true)
    await page.getByLabel('Mode').selectOption('create-only')
    await dry.getByRole('button', { name: 'Apply' }).click()
    await page.getByRole('region', { name: 'Import report' }).getByText('The import is complete.').waitFor()
    assert.equal((await items('Kalita')).length, 1)
    const kept = await h.api<{ data: { description: string } }>(
      'GET',
      `/api/admin/items/${existing.body.data.id}`,
    )
    assert.equal(kept.body.data.description, 'As the admin wrote it.')
  })

  it('shows the refusals next to their fields and keeps the form: both content and URL, neither, too large', async () => {
    const page = await h.signedIn('/import-export')
    const content = page.getByLabel('Content', { exact: true })
    const url = page.getByLabel('URL', { exact: true })
    await content.fill('- [One](https://one.example) - one')
    await url.fill(`${base}/gear.csv`)
    await page.getByRole('button', { name: 'Dry run' }).click()
    await page.getByRole('alert').filter({ hasText: 'see the messages next to them' }).waitFor()
    assert.match(await fieldError(page, content), /exactly one of content and url/)
    assert.match(await fieldError(page, url), /exactly one of content and url/)
    assert.equal(await content.inputValue(), '- [One](https://one.example) - one')
    assert.equal(await url.inputValue(), `${base}/gear.csv`)

    await page.reload()
    await page.getByRole('button', { name: 'Dry run' }).click()
    await page.locator('.field-error').first().waitFor()
    assert.match(await fieldError(page, content), /exactly one of content and url/)
    assert.match(await fieldError(page, url), /exactly one of content and url/)

    const large = `# Large\n\n## Things\n\n${'- [A thing](https://thing.example) - a line of padding text.\n'.repeat(400)}`
    await content.fill(large)
    await page.getByRole('button', { name: 'Dry run' }).click()
    await page.locator('.field-error', { hasText: 'IMPORT_MAX_BYTES' }).waitFor()
    assert.match(await fieldError(page, content), /larger than 20000 bytes/)
    assert.equal((await content.inputValue()).length, large.length)
    assert.equal(await url.getAttribute('aria-invalid'), null)
    assert.equal(await page.getByRole('region', { name: /report/ }).count(), 0)
  })

  it('downloads the CSV export through its link, with the items in it', async () => {
    await h.api('POST', '/api/admin/items', {
      name: 'Export Check Teapot',
      url: `${base}/shop/export-check`,
      status: 'draft',
    })
    const page = await h.signedIn('/import-export')
    const exports = page.getByRole('region', { name: 'Export' })
    await exports.getByRole('link', { name: 'Download Markdown' }).waitFor()
    await exports.getByRole('link', { name: 'Download JSON' }).waitFor()
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      exports.getByRole('link', { name: 'Download CSV' }).click(),
    ])
    assert.match(download.suggestedFilename(), /\.csv$/)
    const csv = await readFile(await download.path(), 'utf8')
    const [header, ...rows] = csv.trim().split('\r\n')
    assert.match(header ?? '', /^slug,name,url,description,category,tags,status,/)
    assert.ok(
      rows.some(
        (row) => row.startsWith('export-check-teapot,Export Check Teapot,') && row.includes(',draft,'),
      ),
      csv,
    )
  })

  it('starts a link check run from the screen and links to the items by link health', async () => {
    await h.api('POST', '/api/admin/items', {
      name: 'Alive Tea House',
      url: `${base}/shop/alive-tea-house`,
      status: 'published',
    })
    await h.api('POST', '/api/admin/items', {
      name: 'Closed Tea Room',
      url: `${base}/closed`,
      status: 'published',
    })
    // The directory's clock is a manual one: time passes, so this run is newer than the one the schedule
    // may have started when the directory started (the status shows the latest run).
    h.directory.clock.advance(60_000)
    const page = await h.signedIn('/import-export')
    const health = page.getByRole('region', { name: 'Link health' })
    // A run the schedule started with the directory may be under way: the button waits for its end.
    const start = health.getByRole('button', { name: 'Check all links now' })
    await start.click()
    await page.getByRole('status').filter({ hasText: 'Link check started' }).waitFor()
    await health.getByText('started by an admin').waitFor()
    await health.locator('.transfer-run .status-completed').waitFor()

    const status = await h.api<{
      data: {
        run: {
          trigger: string
          status: string
          total: number
          processed: number
          ok: number
          redirected: number
          failed: number
        }
        counts: { ok: number }
      }
    }>('GET', '/api/admin/link-checks')
    const run = status.body.data.run
    assert.equal(run.trigger, 'admin')
    assert.equal(run.status, 'completed')
    assert.ok(run.processed >= 2 && run.failed >= 1 && status.body.data.counts.ok >= 1, JSON.stringify(run))
    // The screen shows the run the API has.
    await health
      .getByText(
        `${run.processed} of ${run.total} checked: ${run.ok} OK, ${run.redirected} redirected, ${run.failed} failed`,
      )
      .waitFor()
    const [closed] = await items('Closed Tea Room')
    assert.equal(closed?.link.status, 'unchecked', 'one failure does not break a link yet')
    assert.equal(closed?.link.failures, 1, JSON.stringify(closed?.link))

    await health.getByRole('link', { name: 'Show items with OK links' }).click()
    await page.getByRole('heading', { name: 'Items', level: 1 }).waitFor()
    assert.match(page.url(), /\/admin\/items\?linkStatus=ok$/)
    const table = page.getByRole('table', { name: 'Items' })
    await table.getByRole('link', { name: 'Alive Tea House' }).waitFor()
    assert.equal(await table.getByRole('link', { name: 'Closed Tea Room' }).count(), 0)
  })

  it('opens an import from the address, keeps it on reload, and fits a phone', async () => {
    const queued = await h.api<{ data: ImportAnswer }>('POST', '/api/admin/imports', {
      format: 'markdown',
      content: teaList(),
      dryRun: true,
    })
    assert.equal(queued.status, 202)
    const id = queued.body.data.id
    const applied = await h.api('POST', '/api/admin/imports', { format: 'csv', content: gearCsv() })
    assert.equal(applied.status, 202)
    const page = await h.signedIn(`/import-export?import=${id}`, { width: 375 })
    const report = page.getByRole('region', { name: 'Dry run report' })
    await report
      .getByText(/It would give: \d+ created, \d+ updated, \d+ unchanged, 0 skipped, 1 error\./)
      .waitFor()
    await report.getByRole('row', { name: /Line 9/ }).waitFor()
    await report.getByText('To apply it, give the file again').waitFor()
    await page.reload()
    await report
      .getByText(/It would give: \d+ created, \d+ updated, \d+ unchanged, 0 skipped, 1 error\./)
      .waitFor()
    assert.match(page.url(), new RegExp(`\\?import=${id}$`))
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)
    assert.ok(overflow <= 0, `the page is ${overflow} px wider than the screen`)
    assert.deepEqual(await seriousViolations(page), [])

    // Another one opens from the list of past imports; the back button returns to this one.
    const past = page.getByRole('table', { name: 'Past imports' })
    await past
      .getByRole('link', { name: /^Show report of the import/ })
      .first()
      .click()
    await page.getByRole('region', { name: 'Import report' }).waitFor()
    assert.doesNotMatch(page.url(), new RegExp(id))
    await page.goBack()
    await page.getByRole('region', { name: 'Dry run report' }).waitFor()

    await page.goto('/admin/import-export?import=no-such-import')
    await page.getByText('There is no import with this id').waitFor()
  })
})
