/**
 * Deploying from the platform console in Chromium, against the GitHub and Vercel stand-ins: the check
 * saying what is missing and where to set it, a deploy followed live to Ready and its site, a failed one
 * with its error, the history of both, an editor and a viewer of a shared work, and several works deployed
 * in one request and followed to their sites.
 */
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import type { Page } from 'playwright-core'
import { screenshot, seriousViolations } from './console.ts'
import {
  type ConsoleUser,
  GITHUB_TOKEN,
  type PlatformConsoleHarness,
  startPlatformConsole,
  VERCEL_TOKEN,
} from './platform.ts'

let h: PlatformConsoleHarness

before(async () => {
  h = await startPlatformConsole()
})
after(async () => {
  await h?.close()
})

const BUILD_ERROR = 'Command "npm run build" exited with 1'

/** A work of `user`'s, its name unique in the file: the stand-ins' projects are named after its slug. */
async function work(user: ConsoleUser, name: string) {
  const created = await h.api<{ id: string; name: string; slug: string }>(user, 'POST', '/api/works', {
    name: `${name} ${randomUUID().slice(0, 8)}`,
  })
  assert.equal(created.status, 201, JSON.stringify(created.body))
  return created.body
}

const latest = (page: Page) => page.getByRole('region', { name: 'Latest deployment' })

describe('platform console: deploy', () => {
  it('says what is missing for a user without providers, and where to set it', async () => {
    const { page, user } = await h.signedIn('/works', { width: 375 })
    const target = await work(user, 'Unset Guide')
    await page.goto(`/console/works/${target.id}/deploy`)
    const missing = page.getByRole('status').filter({ hasText: 'cannot be deployed yet' })
    await missing.getByText('No hosting provider').waitFor()
    await missing.getByText('enable the Vercel plugin with a token').waitFor()
    await missing.getByText('No Git host').waitFor()
    await missing.getByText('enable the GitHub plugin with a token').waitFor()
    assert.equal(
      await missing.getByRole('link', { name: 'Plugins › GitHub' }).getAttribute('href'),
      '/console/plugins/github',
    )
    assert.equal(
      await missing.getByRole('link', { name: 'Plugins › Vercel' }).getAttribute('href'),
      '/console/plugins/vercel',
    )
    assert.ok(await page.getByRole('button', { name: 'Deploy', exact: true }).isDisabled())
    await latest(page).getByText('This work has not been deployed yet.').waitFor()
    await page
      .getByRole('table', { name: 'Deployments of this work, newest first' })
      .getByText('No deployments yet.')
      .waitFor()
    assert.deepEqual(await seriousViolations(page), [])
    const width = await page.evaluate('document.documentElement.scrollWidth')
    assert.ok(Number(width) <= 375, `the page is ${width} px wide`)
  })

  it('deploys a work to Ready and its site; a failed one shows its error; the history lists both', async () => {
    const user = await h.user()
    await h.enableProviders(user)
    const target = await work(user, 'Tea Atlas')
    const { page } = await h.signedIn(`/works/${target.id}/deploy`, { user })
    await page.getByText('Ready to deploy: Vercel and GitHub are set up.').waitFor()

    await page.getByRole('button', { name: 'Deploy', exact: true }).click()
    await page
      .getByRole('status')
      .filter({ hasText: `Deploying "${target.name}" to Vercel through` })
      .waitFor()
    await latest(page).getByText('The site is live.').waitFor()
    const site = latest(page).getByRole('link', { name: `${target.slug}-website-abc123.vercel.app` })
    assert.equal(await site.getAttribute('href'), `https://${target.slug}-website-abc123.vercel.app`)
    assert.equal(
      await latest(page).getByRole('listitem').filter({ hasText: 'Ready' }).getAttribute('aria-current'),
      'step',
    )

    // The next deployment's build fails at Vercel; it is a later one (the stand-in keeps the first).
    h.onWorkflow((repo) => {
      h.vercel.createDeployment(repo.split('/')[1] ?? repo, {
        states: ['BUILDING', 'ERROR'],
        advanceOnRead: true,
        errorMessage: BUILD_ERROR,
      })
    })
    h.platform.clock.advance(1000)
    try {
      await page.getByRole('button', { name: 'Deploy', exact: true }).click()
      await latest(page).getByText('The deployment failed.').waitFor()
      await latest(page).getByRole('alert').filter({ hasText: BUILD_ERROR }).waitFor()
    } finally {
      h.onWorkflow()
    }

    const history = page.getByRole('table', { name: 'Deployments of this work, newest first' })
    await history.locator('tbody tr').filter({ hasText: BUILD_ERROR }).getByText('Failed').waitFor()
    await history
      .locator('tbody tr')
      .filter({ has: page.getByRole('link', { name: `${target.slug}-website-abc123.vercel.app` }) })
      .getByText('Ready')
      .waitFor()
    assert.equal(await history.locator('tbody tr').count(), 2)
    assert.equal(await history.getByRole('cell', { name: 'You', exact: true }).count(), 2)
    assert.deepEqual(await seriousViolations(page), [])
    await screenshot(page, 'work-deploy', 'console')
  })

  it('a deploy the API refuses says why in the form', async () => {
    const user = await h.user()
    await h.api(user, 'POST', '/api/plugins/github/enable', { secretSettings: { token: GITHUB_TOKEN } })
    await h.api(user, 'POST', '/api/plugins/vercel/enable', { secretSettings: { token: 'vercel_revoked_0' } })
    const target = await work(user, 'Revoked Guide')
    const { page } = await h.signedIn(`/works/${target.id}/deploy`, { user })
    // Both tokens are set, so the check (which asks no provider) lets the deploy be tried.
    await page.getByText('Ready to deploy: Vercel and GitHub are set up.').waitFor()
    await page.getByText('Vercel’s teams could not be listed').waitFor()
    await page.getByRole('button', { name: 'Deploy', exact: true }).click()
    const form = page.getByRole('form', { name: 'Deploy the work' })
    await form.getByRole('alert').filter({ hasText: 'Vercel rejected the token' }).waitFor()
    await latest(page).getByText('This work has not been deployed yet.').waitFor()
  })

  it('an editor of a shared work is told to ask its owner; a viewer cannot deploy', async () => {
    const owner = await h.user('Owner')
    const target = await work(owner, 'Shared Guide')
    const editor = await h.user('Editor')
    const viewer = await h.user('Viewer')
    for (const [member, role] of [
      [editor, 'editor'],
      [viewer, 'viewer'],
    ] as const) {
      const shared = await h.api(owner, 'POST', `/api/works/${target.id}/members`, {
        email: member.email,
        role,
      })
      assert.equal(shared.status, 201)
    }

    const { page } = await h.signedIn(`/works/${target.id}/deploy`, { user: editor })
    await page
      .getByText('the owner has no Vercel token set. Ask the owner to enable the Vercel plugin')
      .waitFor()
    assert.ok(await page.getByRole('button', { name: 'Deploy', exact: true }).isDisabled())
    // The owner sets up Vercel only: the check now names what is still missing, GitHub.
    const enabled = await h.api(owner, 'POST', '/api/plugins/vercel/enable', {
      secretSettings: { token: VERCEL_TOKEN },
    })
    assert.equal(enabled.status, 200)
    await page.reload()
    await page.getByText('the owner has no GitHub token set').waitFor()

    const seen = await h.signedIn(`/works/${target.id}/deploy`, { user: viewer })
    await seen.page
      .getByText('You are a viewer of this work: only its owner and its editors can deploy it')
      .waitFor()
    assert.equal(await seen.page.getByRole('button', { name: 'Deploy', exact: true }).count(), 0)
    assert.deepEqual(await seriousViolations(seen.page), [])
  })

  it('deploys two works in one request and follows each to its site', async () => {
    const user = await h.user()
    await h.enableProviders(user)
    const first = await work(user, 'Bakeries')
    const second = await work(user, 'Bookshops')
    const third = await work(user, 'Cinemas')
    const other = await h.user('Other')
    const shared = await work(other, 'Viewed')
    await h.api(other, 'POST', `/api/works/${shared.id}/members`, { email: user.email, role: 'viewer' })

    const { page } = await h.signedIn('/works', { user })
    await page.getByRole('link', { name: 'Deploy several works' }).click()
    await page.getByRole('heading', { name: 'Deploy several works', level: 1 }).waitFor()
    const picker = page.getByRole('table', { name: 'Works you can deploy' })
    await picker.getByText(third.name).waitFor()
    assert.equal(await picker.getByText(shared.name).count(), 0)
    await page.getByText('1 work is not listed: shared with you as a viewer').waitFor()
    assert.ok(await page.getByRole('button', { name: 'Deploy works' }).isDisabled())

    await page.getByRole('checkbox', { name: `Select ${first.name}` }).check()
    await page.getByRole('checkbox', { name: `Select ${second.name}` }).check()
    await page.getByRole('button', { name: 'Deploy 2 works' }).click()
    await page.getByText('Started 2 of 2 deployments').waitFor()
    const followed = new URL(page.url()).searchParams.get('works')?.split(',') ?? []
    assert.deepEqual(followed.sort(), [first.id, second.id].sort())

    const outcome = page.getByRole('table', { name: 'Deployments of the works deployed together' })
    for (const deployed of [first, second]) {
      const row = outcome.locator('tbody tr').filter({ hasText: deployed.name })
      await row.getByRole('link', { name: `${deployed.slug}-website-abc123.vercel.app` }).waitFor()
      await row.getByText('Ready').waitFor()
    }
    assert.equal(await outcome.getByText(third.name).count(), 0)
    assert.deepEqual(await seriousViolations(page), [])
    await screenshot(page, 'batch-deploy', 'console')

    // A reload keeps following the works deployed, from the address.
    await page.reload()
    await outcome.locator('tbody tr').filter({ hasText: first.name }).getByText('Ready').waitFor()
  })
})
