/**
 * Signing in to the admin console in Chromium: the refusals, a non-admin, a deep link that survives a
 * reload, a session that ends under the user, and the page at a phone's width.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { ADMIN, type ConsoleHarness, screenshot, seriousViolations, startConsole } from './console.ts'

let h: ConsoleHarness

before(async () => {
  h = await startConsole()
})
after(async () => {
  await h?.close()
})

describe('admin console: signing in', () => {
  it('serves the app under /admin with its assets cached for good and the page revalidated', async () => {
    const page = await fetch(`${h.url}/admin/items?status=pending`)
    assert.equal(page.status, 200)
    assert.match(page.headers.get('content-type') ?? '', /text\/html/)
    assert.equal(page.headers.get('cache-control'), 'no-cache')
    assert.match(page.headers.get('content-security-policy') ?? '', /script-src 'self'/)
    const html = await page.text()
    const script = /src="(\/admin\/assets\/[^"]+\.js)"/.exec(html)?.[1]
    assert.ok(script, html)
    const asset = await fetch(`${h.url}${script}`, { headers: { 'accept-encoding': 'gzip' } })
    assert.equal(asset.status, 200)
    assert.equal(asset.headers.get('cache-control'), 'public, max-age=31536000, immutable')
    assert.match(asset.headers.get('content-type') ?? '', /javascript/)
    const missing = await fetch(`${h.url}/admin/assets/nothing-here.js`)
    assert.equal(missing.status, 404)
    assert.equal(((await missing.json()) as { code: string }).code, 'NOT_FOUND')
  })

  it('refuses a wrong password with the API’s message and keeps the email typed', async () => {
    const page = await h.newPage()
    await page.goto('/admin')
    assert.deepEqual(await seriousViolations(page), [])
    await screenshot(page, 'sign-in')
    await page.getByLabel('Email').fill(ADMIN.email)
    await page.getByLabel('Password').fill('not the password')
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page
      .getByRole('alert')
      .filter({ hasText: /invalid|incorrect|wrong/i })
      .waitFor()
    assert.equal(await page.getByLabel('Email').inputValue(), ADMIN.email)
    assert.equal(await page.getByRole('navigation', { name: 'Main' }).count(), 0)
  })

  it('names an empty field next to it', async () => {
    const page = await h.newPage()
    await page.goto('/admin')
    await page.getByLabel('Email').fill(ADMIN.email)
    await page.getByRole('button', { name: 'Sign in' }).click()
    const password = page.getByLabel('Password')
    await page.locator('.field-error').first().waitFor()
    assert.equal(await password.getAttribute('aria-invalid'), 'true')
    const describedBy = (await password.getAttribute('aria-describedby')) ?? ''
    const message = await page.locator(`[id="${describedBy}"]`).textContent()
    assert.match(message ?? '', /characters|required|must/i)
  })

  it('tells a signed-in non-admin so, shows nothing else, and lets them sign out', async () => {
    const email = `member-${Date.now()}@example.com`
    const registered = await fetch(`${h.url}/api/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: h.url },
      body: JSON.stringify({ name: 'Member', email, password: 'member-password-1' }),
    })
    assert.ok(registered.status < 300, await registered.text())
    const page = await h.newPage()
    await page.goto('/admin/items')
    await page.getByLabel('Email').fill(email)
    await page.getByLabel('Password').fill('member-password-1')
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByRole('heading', { name: 'This account is not an admin' }).waitFor()
    assert.equal(await page.getByRole('navigation', { name: 'Main' }).count(), 0)
    assert.equal(await page.getByRole('table').count(), 0)
    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.getByRole('button', { name: 'Sign in' }).waitFor()
    const me = await page.evaluate(`fetch('/api/current-user').then((r) => r.json())`)
    assert.equal(me, null)
  })

  it('opens a deep link after sign-in and again after a reload, filters and page from the address', async () => {
    for (let i = 0; i < 30; i++)
      await h.api('POST', '/api/admin/items', {
        name: `Deep link item ${String(i).padStart(2, '0')}`,
        status: 'pending',
      })
    const page = await h.signedIn('/items?status=pending&sort=name%3Aasc&page=2')
    const table = page.getByRole('table', { name: 'Items' })
    await table.getByRole('link', { name: 'Deep link item 25' }).waitFor()
    assert.equal(await page.getByRole('tab', { name: /Pending/ }).getAttribute('aria-selected'), 'true')
    await page.reload()
    await table.getByRole('link', { name: 'Deep link item 25' }).waitFor()
    assert.match(page.url(), /\/admin\/items\?status=pending&sort=name%3Aasc&page=2$/)
    assert.equal(await table.getByRole('link', { name: 'Deep link item 00' }).count(), 0)
  })

  it('brings back the sign-in form in place when the session ends, and returns to the same view', async () => {
    const page = await h.signedIn('/items?status=pending')
    await page.getByRole('table', { name: 'Items' }).getByRole('link').first().waitFor()
    // The session ends on the server (here: signed out from another tab); the next call answers 401.
    await page.evaluate(() => fetch('/api/auth/signout', { method: 'POST' }))
    await page.getByRole('tab', { name: /Draft/ }).click()
    await page.getByText('Your session has ended').waitFor()
    assert.match(page.url(), /\/admin\/items\?status=draft$/)
    await page.getByLabel('Email').fill(ADMIN.email)
    await page.getByLabel('Password').fill(ADMIN.password)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByRole('tab', { name: /Draft/, selected: true }).waitFor()
    assert.match(page.url(), /\/admin\/items\?status=draft$/)
  })

  it('works at 375 px wide: the navigation opens from the menu button', async () => {
    const page = await h.signedIn('/', { width: 375 })
    const nav = page.getByRole('navigation', { name: 'Main' })
    assert.equal(await nav.getByRole('link', { name: 'Items' }).isVisible(), false)
    await page.getByRole('button', { name: 'Menu' }).click()
    await nav.getByRole('link', { name: 'Items' }).click()
    await page.getByRole('heading', { name: 'Items', level: 1 }).waitFor()
    assert.equal(await nav.getByRole('link', { name: 'Items' }).isVisible(), false)
    const overflow = (await page.evaluate(
      'document.documentElement.scrollWidth - window.innerWidth',
    )) as number
    assert.ok(overflow <= 0, `the page is ${overflow} px wider than the screen`)
  })
})
