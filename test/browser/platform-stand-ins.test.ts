/**
 * The demo in Chromium: on a platform whose providers are local stand-ins (DEMO_STAND_INS, and their keys
 * as the plugins' environment fallbacks, as `npm run demo` starts it), the sign-in form and every screen
 * after it say so (web/console/stand-ins.tsx), at 375 px too; and a new user goes from a new account to a
 * deployed site in the console alone, typing no key. A platform without the setting shows no notice (its
 * `GET /` has no `demo`: the base tests check that answer field by field).
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { screenshot, seriousViolations } from './console.ts'
import {
  GITHUB_TOKEN,
  OPENAI_API_KEY,
  type PlatformConsoleHarness,
  startPlatformConsole,
  VERCEL_TOKEN,
} from './platform.ts'

const NOTICE =
  'Demo: OpenAI, GitHub and Vercel are local stand-ins, so generation and deploys stay on this machine.'

let h: PlatformConsoleHarness

before(async () => {
  h = await startPlatformConsole({
    env: {
      DEMO_STAND_INS: 'openai,github,vercel',
      OPENAI_API_KEY,
      GITHUB_TOKEN,
      VERCEL_TOKEN,
    },
  })
})
after(async () => {
  await h?.close()
})

describe('platform console: the demo’s stand-ins', () => {
  it('are named on the sign-in form and on every screen after it', async () => {
    const user = await h.user()
    const page = await h.newPage({ width: 375 })
    await page.goto('/console')
    const notice = page.getByRole('complementary', { name: 'Demo' })
    await page.getByRole('button', { name: 'Sign in' }).waitFor()
    await notice.waitFor()
    assert.equal((await notice.innerText()).replace(/\s+/g, ' ').trim(), NOTICE)
    assert.deepEqual(await seriousViolations(page), [])
    await screenshot(page, 'demo-sign-in', 'console')

    await page.getByLabel('Email').fill(user.email)
    await page.getByLabel('Password').fill(user.password)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByRole('heading', { name: 'Works', level: 1 }).waitFor()
    assert.equal(await notice.count(), 1)
    assert.deepEqual(await seriousViolations(page), [])
    await screenshot(page, 'demo-works', 'console')

    await page.goto('/console/account')
    await page.getByRole('heading', { name: 'Account', level: 1 }).waitFor()
    await notice.waitFor()
  })

  it('takes a new user from a new account to a deployed site, typing no key', async () => {
    const page = await h.newPage()
    await page.goto('/console/create-account')
    await page.getByLabel('Name').fill('Ada')
    await page.getByLabel('Email').fill(`demo-${Date.now()}@example.com`)
    await page.getByLabel('Password').fill('a good password')
    await page.getByRole('button', { name: 'Create account' }).click()
    await page.getByRole('button', { name: 'New work' }).click()
    await page.getByRole('dialog', { name: 'New work' }).getByLabel('Name').fill('Coffee roasters')
    await page.getByRole('button', { name: 'Create work' }).click()
    await page.getByRole('heading', { name: 'Coffee roasters', level: 1 }).waitFor()

    // The work has no AI provider yet; the server's environment gives OpenAI its key: one click.
    await page.getByRole('tab', { name: 'Generation' }).click()
    await page.getByRole('button', { name: 'Enable OpenAI and use it for this work' }).click()
    await page.getByText('gpt-4o-mini').waitFor()
    await page.getByRole('button', { name: 'Generate items' }).click()
    await page.getByText(/stored 5 items/).waitFor()
    await page.getByRole('tab', { name: 'Items' }).click()
    await page.locator('[role="tabpanel"] table[aria-busy="false"] tbody tr').nth(4).waitFor()

    // GitHub and Vercel need nothing either.
    await page.getByRole('tab', { name: 'Deploy' }).click()
    await page.getByRole('button', { name: 'Deploy', exact: true }).click()
    const latest = page.getByRole('region', { name: 'Latest deployment' })
    await latest.getByRole('link', { name: /coffee-roasters-website/ }).waitFor()
    await latest.getByText('The site is live.').waitFor()
    assert.deepEqual(await seriousViolations(page), [])
  })
})
