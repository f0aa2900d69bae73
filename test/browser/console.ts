/**
 * What the browser tests share: a live directory on its own port (real sockets, the embedded database of
 * the test file, the console's real build), Debian's Chromium driven by Playwright, a signed-in admin's
 * page, an axe-core check, and the screenshots `npm run screenshots` keeps for the README.
 */

import assert from 'node:assert/strict'
import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { type Browser, type BrowserContext, chromium, type Locator, type Page } from 'playwright-core'
import { ensureAdmin } from '../../src/directory/admin/bootstrap.ts'
import { WEB_BUILD_DIR } from '../../src/http/console.ts'
import { type DirectoryHarness, type DirectoryHarnessOptions, startDirectory } from '../helpers/apps.ts'
import { freePort } from '../helpers/ports.ts'

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
export const ADMIN = { email: 'admin@example.com', password: 'admin-password-1' }

export interface ConsoleHarness {
  /** The directory's base URL, e.g. http://127.0.0.1:41234. */
  url: string
  directory: DirectoryHarness
  browser: Browser
  /** A new browser context (its own cookies) with one page, at `width` px wide. */
  newPage(options?: { width?: number; height?: number }): Promise<Page>
  /** A page signed in as the admin, opened at `path` under /admin (the sign-in form is filled in). */
  signedIn(path?: string, options?: { width?: number }): Promise<Page>
  /** Calls the API as the admin (its own session), for arranging and checking what the UI did. */
  api<T = unknown>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }>
  close(): Promise<void>
}

export async function startConsole(options: DirectoryHarnessOptions = {}): Promise<ConsoleHarness> {
  if (!existsSync(join(WEB_BUILD_DIR, 'admin', 'index.html')))
    throw new Error('The admin console is not built: run `npm run build:web` (npm install builds it)')
  if (!existsSync(CHROMIUM))
    throw new Error(`No Chromium at ${CHROMIUM}: install it with \`apt-get install -y chromium\``)
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  const directory = await startDirectory({
    ...options,
    env: { APP_URL: url, RATE_LIMIT_BYPASS_LOCALHOST: 'true', ...options.env },
  })
  await directory.app.listen({ port, host: '127.0.0.1' })
  await ensureAdmin(
    { db: directory.databases.directory.db, clock: directory.clock },
    ADMIN.email,
    ADMIN.password,
  )
  const browser = await launchChromium()
  const pages = pageOpener(browser, url)

  let cookie: string | undefined
  const api = async <T>(method: string, path: string, body?: unknown) => {
    if (!cookie) {
      const res = await fetch(`${url}/api/auth/signin`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: url },
        body: JSON.stringify(ADMIN),
      })
      cookie = res.headers
        .getSetCookie()
        .map((c) => c.split(';')[0])
        .join('; ')
    }
    const res = await fetch(`${url}${path}`, {
      method,
      headers: {
        cookie,
        origin: url,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    const text = await res.text()
    return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T }
  }

  const newPage = pages.open

  return {
    url,
    directory,
    browser,
    newPage,
    api,
    async signedIn(path = '/', options = {}) {
      const page = await newPage(options)
      await page.goto(`/admin${path === '/' ? '' : path}`)
      await page.getByLabel('Email').fill(ADMIN.email)
      await page.getByLabel('Password').fill(ADMIN.password)
      await page.getByRole('button', { name: 'Sign in' }).click()
      await page.getByRole('button', { name: 'Sign out' }).waitFor()
      return page
    },
    async close() {
      await pages.closeAll()
      await directory.close()
      pages.failOnPageErrors()
    },
  }
}

/** Debian's Chromium, headless, with no background traffic (nothing here may reach the internet). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  })
}

/**
 * Pages on `url`, each in a new browser context (its own cookies and storage); an uncaught error in any of
 * them is kept, and `failOnPageErrors()` (after `closeAll()`) fails the file if there was one.
 */
export function pageOpener(browser: Browser, url: string) {
  const contexts: BrowserContext[] = []
  const pageErrors: string[] = []
  return {
    async open({ width = 1280, height = 900 } = {}): Promise<Page> {
      const context = await browser.newContext({ viewport: { width, height }, baseURL: url })
      contexts.push(context)
      context.setDefaultTimeout(10_000)
      const page = await context.newPage()
      page.on('pageerror', (error) => pageErrors.push(`${page.url()}: ${error.message}`))
      return page
    },
    async closeAll() {
      for (const context of contexts) await context.close().catch(() => {})
      await browser.close().catch(() => {})
    },
    failOnPageErrors() {
      if (pageErrors.length > 0) throw new Error(`Errors in the console's pages:\n${pageErrors.join('\n')}`)
    },
  }
}

const axeSource = () =>
  readFileSync(join(import.meta.dirname, '../../node_modules/axe-core/axe.min.js'), 'utf8')
let axeScript: string | undefined

export interface AxeViolation {
  id: string
  impact: string | null
  help: string
  nodes: { target: string[] }[]
}

/**
 * The serious and critical axe-core violations of the page as it stands (WCAG 2.1 A and AA rules). The
 * script goes in through the DevTools protocol, so the page's own policy, which allows no inline script,
 * stays on.
 */
export async function seriousViolations(page: Page): Promise<string[]> {
  axeScript ??= axeSource()
  await page.evaluate(axeScript)
  // A string, run in the page: this file is type-checked without the DOM's types.
  const violations = (await page.evaluate(`axe
    .run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } })
    .then((result) => result.violations)`)) as AxeViolation[]
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)
}

/**
 * With CURIO_SCREENSHOTS=<folder> (`npm run screenshots`), keeps a picture of the screen as
 * `<folder>/<console>/<name>.png` (`admin` or `console`); otherwise does nothing.
 */
export async function screenshot(
  page: Page,
  name: string,
  console: 'admin' | 'console' = 'admin',
): Promise<void> {
  const folder = process.env.CURIO_SCREENSHOTS
  if (!folder) return
  mkdirSync(join(folder, console), { recursive: true })
  await page.screenshot({ path: join(folder, console, `${name}.png`), fullPage: false })
}

/**
 * The error a field shows, as a screen reader reaches it: once the field is marked invalid (the answer comes
 * when it comes), the text of the `.field-error` its `aria-describedby` names.
 */
export async function fieldError(page: Page, field: Locator): Promise<string> {
  await field.and(page.locator('[aria-invalid="true"]')).waitFor()
  const ids = ((await field.getAttribute('aria-describedby')) ?? '').split(' ').filter(Boolean)
  const texts = await Promise.all(ids.map((id) => page.locator(`[id="${id}"].field-error`).allTextContents()))
  const message = texts.flat().join(' ')
  assert.ok(message, 'no error message is tied to the field')
  return message
}
