/**
 * A work's Generation and Items tabs in Chromium, against the OpenAI stand-in: a generation started from
 * the console with its progress and log live, then its items; a thousand items paged and searched in the
 * browser; a running generation cancelled after confirming, and a second start refused while it ran; a
 * failure's reason and the notification it raised; and what the tab says when the work has no AI provider.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Page } from 'playwright-core'
import { screenshot, seriousViolations } from './console.ts'
import { type ConsoleUser, type PlatformConsoleHarness, startPlatformConsole } from './platform.ts'

let h: PlatformConsoleHarness

before(async () => {
  h = await startPlatformConsole({
    env: {
      // A provider's failure is the run's at once, not after the SDK's retries with backoff.
      AI_PROVIDER_MAX_RETRIES: '0',
      // The worker's heartbeat (a quarter of this) notices a cancel quickly and lets go of the held request.
      GENERATION_STALE_MS: '1000',
    },
  })
})
after(async () => {
  await h?.close()
})

interface WorkAnswer {
  id: string
  generateStatus: { status: string; itemsCount: number }
}

/**
 * A user whose account has the OpenAI stand-in enabled, and a work made after it: a new work takes the
 * account's auto-enabled plugins, so OpenAI is its active AI provider (what the Plugins tab would set).
 */
async function workWithProvider(name: string): Promise<{ user: ConsoleUser; work: WorkAnswer }> {
  const user = await h.user()
  await h.enableProviders(user)
  const work = await createWork(user, name)
  const plugins = await h.api<{ plugins: { id: string; activeCapability: string | null }[] }>(
    user,
    'GET',
    `/api/works/${work.id}/plugins`,
  )
  assert.equal(plugins.body.plugins.find((plugin) => plugin.id === 'openai')?.activeCapability, 'ai-provider')
  return { user, work }
}

async function createWork(user: ConsoleUser, name: string): Promise<WorkAnswer> {
  const res = await h.api<WorkAnswer>(user, 'POST', '/api/works', { name })
  assert.equal(res.status, 201, JSON.stringify(res.body))
  return res.body
}

const headerStatus = (page: Page, label: string) =>
  page.locator('.page-header').getByText(label, { exact: true })

const generation = (page: Page) => page.getByRole('region', { name: 'Generation', exact: true })

describe('platform console: generation and items', () => {
  it('starts a generation, shows its progress and log live, then its items in the Items tab', async () => {
    const { user, work } = await workWithProvider('Coffee roasters')
    const { page } = await h.signedIn(`/works/${work.id}/generation`, { user })
    const tab = generation(page)
    await tab.getByText('gpt-4o-mini').waitFor()
    await tab.getByText('OpenAI', { exact: true }).waitFor()
    await tab.getByText('No generation has run for this work yet.').waitFor()
    assert.deepEqual(await seriousViolations(page), [])

    h.openai.next({ hang: true })
    const asked = h.openai.waitForRequest()
    await tab.getByLabel('Instructions (optional)').fill('Roasters with an online shop')
    await tab.getByRole('button', { name: 'Generate items' }).click()
    await asked
    await tab.getByRole('progressbar', { name: 'Generation in progress' }).waitFor()
    await tab
      .getByRole('log')
      .getByText(/Asking OpenAI \(gpt-4o-mini\) for up to \d+ items/)
      .waitFor()
    await headerStatus(page, 'Generating').waitFor()
    assert.equal(await tab.getByRole('button', { name: 'Generate items' }).count(), 0)
    const request = h.openai.chatRequests.at(-1)?.body as { messages: { content: string }[] }
    assert.match(JSON.stringify(request.messages), /Instructions: Roasters with an online shop/)
    assert.deepEqual(await seriousViolations(page), [])
    await screenshot(page, 'work-generation', 'console')

    h.openai.release()
    await tab.getByText('The last generation stored 5 items.').waitFor()
    await tab.getByRole('log').getByText('Stored 5 items').waitFor()
    await headerStatus(page, 'Generated').waitFor()
    assert.equal(await tab.getByRole('progressbar').count(), 0)

    await tab.getByRole('link', { name: 'See the items' }).click()
    await page.getByRole('tab', { name: 'Items', selected: true }).waitFor()
    assert.match(page.url(), new RegExp(`/works/${work.id}/items$`))
    await page.getByRole('heading', { name: 'Items (5)' }).waitFor()
    await page.locator('table[aria-busy="false"]').waitFor()
    const rows = page.locator('tbody tr')
    assert.equal(await rows.count(), 5)
    await rows
      .first()
      .getByText(/^Item 1 for /)
      .waitFor()
    await rows.first().getByRole('link', { name: 'example.com/item-1' }).waitFor()
  })

  it('pages a thousand items 50 at a time, searches them, and keeps page and search in the address', async () => {
    const { user, work } = await workWithProvider('Big directory')
    h.openai.next({ items: 1000 })
    const started = await h.api(user, 'POST', `/api/works/${work.id}/generate`, {})
    assert.equal(started.status, 202)
    // The work's page opens on Items, which follows the run and shows its items once it completes.
    const { page } = await h.signedIn(`/works/${work.id}`, { user })
    await page.getByRole('heading', { name: 'Items (1,000)' }).waitFor()
    await page.locator('table[aria-busy="false"]').waitFor()
    const rows = page.locator('tbody tr')
    assert.equal(await rows.count(), 50)
    const pages = page.getByRole('navigation', { name: 'Pages' })
    await pages.getByText('Page 1 of 20').waitFor()
    assert.deepEqual(await seriousViolations(page), [])
    await screenshot(page, 'work-items', 'console')

    await pages.getByRole('button', { name: 'Next' }).click()
    await pages.getByText('Page 2 of 20').waitFor()
    assert.match(page.url(), /[?&]page=2\b/)
    await rows
      .first()
      .getByText(/^Item 51 for /)
      .waitFor()

    await page.getByRole('searchbox', { name: 'Search' }).fill('tag-3')
    await page.getByText('250 of 1,000 items match.').waitFor()
    assert.match(page.url(), /[?&]search=tag-3\b/)
    assert.doesNotMatch(page.url(), /[?&]page=/)
    await pages.getByText('Page 1 of 5').waitFor()
    await rows
      .first()
      .getByText(/^Item 3 for /)
      .waitFor()

    await page.getByLabel('Category').selectOption('Services')
    await page.getByText('83 of 1,000 items match.').waitFor()
    assert.match(page.url(), /[?&]category=Services\b/)

    await page.goto(`/console/works/${work.id}/items?search=item+1000`)
    await page.getByText('1 of 1,000 items match.').waitFor()
    assert.equal(await rows.count(), 1)
    await rows
      .first()
      .getByText(/^Item 1000 for /)
      .waitFor()
    await page.getByRole('searchbox', { name: 'Search' }).fill('no such thing')
    await page.getByText('No item matches this search.').waitFor()
  })

  it('cancels a running generation after confirming; a second start meanwhile is a notice', async () => {
    const { user, work } = await workWithProvider('Tea houses')
    const { page } = await h.signedIn(`/works/${work.id}/generation`, { user })
    const tab = generation(page)
    await tab.getByRole('button', { name: 'Generate items' }).waitFor()
    await tab.getByText('gpt-4o-mini').waitFor()

    // Someone else starts one (a script, another tab) while this page still offers to generate.
    h.openai.next({ hang: true })
    const asked = h.openai.waitForRequest()
    assert.equal((await h.api(user, 'POST', `/api/works/${work.id}/generate`, {})).status, 202)
    await asked
    await tab.getByRole('button', { name: 'Generate items' }).click()
    await tab.getByText(/already running for this work: its progress shows below/).waitFor()
    await tab.getByRole('progressbar', { name: 'Generation in progress' }).waitFor()

    await tab.getByRole('button', { name: 'Cancel generation' }).click()
    const dialog = page.getByRole('dialog', { name: 'Cancel this generation?' })
    await dialog.getByRole('button', { name: 'Cancel', exact: true }).click()
    await dialog.waitFor({ state: 'hidden' })
    const still = await h.api<WorkAnswer>(user, 'GET', `/api/works/${work.id}`)
    assert.equal(still.body.generateStatus.status, 'GENERATING')

    await tab.getByRole('button', { name: 'Cancel generation' }).click()
    await dialog.getByRole('button', { name: 'Cancel generation' }).click()
    await tab.getByText(/The last generation was cancelled/).waitFor()
    await headerStatus(page, 'Cancelled').waitFor()
    await tab.getByRole('log').getByText('Cancelled', { exact: true }).waitFor()
    await tab.getByRole('button', { name: 'Generate items' }).waitFor()
    const cancelled = await h.api<WorkAnswer>(user, 'GET', `/api/works/${work.id}`)
    assert.equal(cancelled.body.generateStatus.status, 'CANCELLED')
  })

  it('a failed generation shows its reason and the notification it raised, with its action', async () => {
    const { user, work } = await workWithProvider('Bakeries')
    const { page } = await h.signedIn(`/works/${work.id}/generation`, { user })
    const tab = generation(page)
    h.openai.next({
      status: 429,
      error: {
        message: 'You exceeded your current quota, please check your plan and billing details.',
        type: 'insufficient_quota',
        code: 'insufficient_quota',
      },
    })
    await tab.getByRole('button', { name: 'Generate items' }).click()
    const failure = tab.getByRole('alert').filter({ hasText: 'The last generation failed.' })
    await failure.waitFor()
    assert.match(await failure.innerText(), /no credits left.*exceeded your current quota/)
    await headerStatus(page, 'Failed').waitFor()

    const raised = tab.getByRole('region', { name: /The notification it raised/ })
    await raised.getByRole('heading', { name: /OpenAI credits are used up/ }).waitFor()
    const action = raised.getByRole('link', { name: 'Update API key' })
    assert.equal(await action.getAttribute('href'), '/console/settings/plugins/openai')
    assert.deepEqual(await seriousViolations(page), [])

    await action.click()
    assert.match(page.url(), /\/console\/settings\/plugins\/openai$/)
  })

  it('says what is missing when the work has no AI provider, and links to where it is set', async () => {
    const user = await h.user()
    const work = await createWork(user, 'Bookshops')
    const { page } = await h.signedIn(`/works/${work.id}/generation`, { user })
    const tab = generation(page)
    const missing = tab.getByRole('region', { name: 'No AI provider is active for this work' })
    await missing.waitFor()
    await missing.getByText(/Enable an AI provider for your account, with its API key/).waitFor()
    // Without a key from the server's environment there is nothing to enable in one click.
    assert.equal(await missing.getByRole('button').count(), 0)
    assert.equal(
      await missing.getByRole('link', { name: 'OpenAI' }).getAttribute('href'),
      '/console/plugins/openai',
    )
    assert.equal(
      await missing.getByRole('link', { name: 'the work’s Plugins tab' }).getAttribute('href'),
      `/console/works/${work.id}/plugins`,
    )
    assert.equal(await tab.getByRole('button', { name: 'Generate items' }).isDisabled(), true)
    assert.deepEqual(await seriousViolations(page), [])

    // Enabled for the account after the work was made: the work still has to take it.
    await h.enableProviders(user)
    await page.reload()
    await missing.getByText(/OpenAI is enabled for your account but not for this work/).waitFor()

    // One click makes it the work's provider.
    await missing.getByRole('button', { name: 'Use OpenAI for this work' }).click()
    await tab.getByText('gpt-4o-mini').waitFor()
    const plugins = await h.api<{ plugins: { id: string; activeCapability: string | null }[] }>(
      user,
      'GET',
      `/api/works/${work.id}/plugins`,
    )
    assert.equal(
      plugins.body.plugins.find((plugin) => plugin.id === 'openai')?.activeCapability,
      'ai-provider',
    )
    assert.equal(await tab.getByRole('button', { name: 'Generate items' }).isDisabled(), false)
  })

  it('the Items tab of a work without items says how to generate them, and fits 375 px', async () => {
    const user = await h.user()
    const work = await createWork(user, 'Empty shelves')
    const { page } = await h.signedIn(`/works/${work.id}`, { user, width: 375 })
    await page.getByRole('heading', { name: 'No items yet' }).waitFor()
    await page.getByRole('link', { name: 'Generate the items' }).click()
    await page.getByRole('tab', { name: 'Generation', selected: true }).waitFor()
    assert.match(page.url(), new RegExp(`/works/${work.id}/generation$`))
    await generation(page).getByRole('region', { name: 'No AI provider is active for this work' }).waitFor()
    const overflow = await page.evaluate('document.documentElement.scrollWidth - window.innerWidth')
    assert.ok((overflow as number) <= 0, `the page is ${overflow} px wider than the screen`)
    assert.deepEqual(await seriousViolations(page), [])
  })
})
