/**
 * The demo's notice in Chromium (web/console/stand-ins.tsx): on a platform whose providers are local
 * stand-ins (DEMO_STAND_INS, as `npm run demo` starts it) the sign-in form and every screen after it say
 * so, at 375 px too. A platform without the setting shows nothing (its `GET /` has no `demo`: the base
 * tests check that answer field by field).
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { screenshot, seriousViolations } from './console.ts'
import { type PlatformConsoleHarness, startPlatformConsole } from './platform.ts'

const NOTICE =
  'Demo: OpenAI, GitHub and Vercel are local stand-ins, so generation and deploys stay on this machine.'

let h: PlatformConsoleHarness

before(async () => {
  h = await startPlatformConsole({ env: { DEMO_STAND_INS: 'openai,github,vercel' } })
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
})
