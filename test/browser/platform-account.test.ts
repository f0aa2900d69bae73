/**
 * The platform console's accounts in Chromium: an account created, signed out and signed in again, a
 * refused sign-in, a deep link that survives a reload (the session resumed from its refresh token), a
 * session revoked under the user, another tab's sign-out, the password changed, and the page at 375 px.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { uniqueEmail } from '../helpers/apps.ts'
import { fieldError, screenshot, seriousViolations } from './console.ts'
import { PASSWORD, type PlatformConsoleHarness, startPlatformConsole } from './platform.ts'

let h: PlatformConsoleHarness

before(async () => {
  h = await startPlatformConsole()
})
after(async () => {
  await h?.close()
})

describe('platform console: accounts', () => {
  it('serves the app under /console, every path the page, its assets cached for good', async () => {
    const page = await fetch(`${h.url}/console/works/some-id/deploy`)
    assert.equal(page.status, 200)
    assert.equal(page.headers.get('cache-control'), 'no-cache')
    assert.match(page.headers.get('content-security-policy') ?? '', /script-src 'self'/)
    const html = await page.text()
    const script = /src="(\/console\/assets\/[^"]+\.js)"/.exec(html)?.[1]
    assert.ok(script, html)
    const asset = await fetch(`${h.url}${script}`)
    assert.equal(asset.headers.get('cache-control'), 'public, max-age=31536000, immutable')
    const missing = await fetch(`${h.url}/console/assets/nothing-here.js`)
    assert.equal(missing.status, 404)
    assert.equal(((await missing.json()) as { code: string }).code, 'NOT_FOUND')
  })

  it('creates an account, lands on its works, signs out and back in', async () => {
    const page = await h.newPage()
    await page.goto('/console')
    await page.getByRole('link', { name: 'Create an account' }).click()
    assert.match(page.url(), /\/console\/create-account$/)
    assert.deepEqual(await seriousViolations(page), [])
    await screenshot(page, 'create-account', 'console')
    const email = uniqueEmail('console-new')
    await page.getByLabel('Name').fill('Grace Hopper')
    await page.getByLabel('Email').fill(email)
    await page.getByLabel('Password').fill('short')
    await page.getByRole('button', { name: 'Create account' }).click()
    assert.match(await fieldError(page, page.getByLabel('Password')), /8/)

    await page.getByLabel('Password').fill(PASSWORD)
    await page.getByRole('button', { name: 'Create account' }).click()
    await page.getByRole('heading', { name: 'Works', level: 1 }).waitFor()
    assert.match(page.url(), /\/console\/works$/)
    await page.getByText(email).waitFor()

    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.getByRole('button', { name: 'Sign in' }).waitFor()
    await page.getByLabel('Email').fill(email)
    await page.getByLabel('Password').fill(PASSWORD)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByRole('heading', { name: 'Works', level: 1 }).waitFor()
  })

  it('an email already taken is said next to the field', async () => {
    const taken = await h.user()
    const page = await h.newPage()
    await page.goto('/console/create-account')
    await page.getByLabel('Email').fill(taken.email)
    await page.getByLabel('Password').fill(PASSWORD)
    await page.getByRole('button', { name: 'Create account' }).click()
    await page
      .getByRole('alert')
      .filter({ hasText: /already|taken|exists/i })
      .waitFor()
  })

  it('refuses a wrong password with the API’s message and keeps the email typed', async () => {
    const user = await h.user()
    const page = await h.newPage()
    await page.goto('/console')
    assert.deepEqual(await seriousViolations(page), [])
    await screenshot(page, 'sign-in', 'console')
    await page.getByLabel('Email').fill(user.email)
    await page.getByLabel('Password').fill('not the password')
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page
      .getByRole('alert')
      .filter({ hasText: /invalid|incorrect|wrong/i })
      .waitFor()
    assert.equal(await page.getByLabel('Email').inputValue(), user.email)
    assert.equal(await page.getByRole('navigation', { name: 'Main' }).count(), 0)
  })

  it('a deep link signs in at its address, and a reload keeps the user signed in there', async () => {
    const { page } = await h.signedIn('/account')
    await page.getByRole('heading', { name: 'Account', level: 1 }).waitFor()
    assert.match(page.url(), /\/console\/account$/)
    // The access token was in memory only: the reload resumes the session with the stored refresh token.
    const stored = await page.evaluate('localStorage.getItem("curio.console.refreshToken")')
    assert.equal(typeof stored, 'string')
    await page.reload()
    await page.getByRole('heading', { name: 'Account', level: 1 }).waitFor()
    assert.equal(await page.getByRole('button', { name: 'Sign in' }).count(), 0)
    // The refresh token was spent and replaced: the old one is refused by the API now.
    const replaced = await page.evaluate('localStorage.getItem("curio.console.refreshToken")')
    assert.notEqual(replaced, stored)
  })

  it('an access token the API no longer takes is renewed and the call repeated, unseen by the user', async () => {
    const { page } = await h.signedIn('/works')
    await page.getByRole('heading', { name: 'Works', level: 1 }).waitFor()
    const before = await page.evaluate('localStorage.getItem("curio.console.refreshToken")')
    // 16 minutes later for the API: the page's 15-minute access token is refused (its own clock did not move).
    h.platform.clock.advance(16 * 60_000)
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'API keys' }).click()
    await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor()
    // The list's call was refused, the session renewed, the call repeated: the list shows.
    await page.locator('table[aria-busy="false"]').waitFor()
    assert.equal(await page.getByRole('button', { name: 'Sign in' }).count(), 0)
    const after = await page.evaluate('localStorage.getItem("curio.console.refreshToken")')
    assert.notEqual(after, before, 'the refresh token was spent on the renewal and replaced')
  })

  it('a second tab shares the session; signing out in one signs out the other', async () => {
    const { page } = await h.signedIn('/works')
    const second = await page.context().newPage()
    await second.goto('/console/account')
    await second.getByRole('heading', { name: 'Account', level: 1 }).waitFor()
    await page.getByRole('heading', { name: 'Works', level: 1 }).waitFor()
    await page.getByRole('button', { name: 'Sign out' }).click()
    await second.getByRole('button', { name: 'Sign in' }).waitFor()
    await second.reload()
    await second.getByRole('button', { name: 'Sign in' }).waitFor()
  })

  it('a session revoked elsewhere brings the sign-in form back in place, and signing in returns there', async () => {
    const { page, user } = await h.signedIn('/account')
    await page.getByRole('heading', { name: 'Account', level: 1 }).waitFor()
    // Another session of the account changes the password: every refresh token of the account is revoked.
    const changed = await h.api<{ accessToken: string }>(user, 'POST', '/api/auth/change-password', {
      currentPassword: PASSWORD,
      newPassword: 'another good password',
    })
    assert.equal(changed.status, 200)
    // This page's access token still works for its 15 minutes; a reload needs the (revoked) refresh token.
    await page.reload()
    await page.getByRole('button', { name: 'Sign in' }).waitFor()
    await page.getByLabel('Email').fill(user.email)
    await page.getByLabel('Password').fill('another good password')
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByRole('heading', { name: 'Account', level: 1 }).waitFor()
    assert.match(page.url(), /\/console\/account$/)
  })

  it('changes the password: a wrong current one is said at its field; the new one signs in', async () => {
    const { page, user } = await h.signedIn('/account')
    assert.deepEqual(await seriousViolations(page), [])
    await screenshot(page, 'account', 'console')
    await page.getByLabel('Current password').fill('not my password')
    await page.getByLabel('New password', { exact: true }).fill('a brand new password')
    await page.getByLabel('Repeat the new password').fill('a brand new password')
    await page.getByRole('button', { name: 'Change password' }).click()
    assert.match(await fieldError(page, page.getByLabel('Current password')), /wrong/i)

    await page.getByLabel('Current password').fill(user.password)
    await page.getByRole('button', { name: 'Change password' }).click()
    await page.getByText('Password changed').waitFor()
    // This session goes on with the new pair: a reload stays signed in.
    await page.reload()
    await page.getByRole('heading', { name: 'Account', level: 1 }).waitFor()
    const login = await fetch(`${h.url}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: user.email, password: 'a brand new password' }),
    })
    assert.equal(login.status, 200)
  })

  it('at 375 px the navigation folds behind Menu and every link is reachable', async () => {
    const { page } = await h.signedIn('/works', { width: 375 })
    const menu = page.getByRole('button', { name: 'Menu' })
    await menu.click()
    for (const name of ['Works', 'API keys', 'Webhooks', 'Plugins', 'Notifications', 'Activity']) {
      assert.ok(
        await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name }).isVisible(),
        name,
      )
    }
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'API keys' }).click()
    assert.match(page.url(), /\/console\/api-keys$/)
    const width = await page.evaluate('document.documentElement.scrollWidth')
    assert.ok(Number(width) <= 375, `the page is ${width} px wide`)
  })
})
