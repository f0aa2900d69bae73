/**
 * What the platform console's browser tests share: a live platform on its own port (real sockets, the
 * embedded database of the test file, the console's real build) whose AI, Git and deployment providers are
 * the local stand-ins of test/fakes/ (OpenAI, GitHub, Vercel), Debian's Chromium driven by Playwright, and
 * users: created through the API for arranging, signed in through the console's own form.
 */

import { existsSync } from 'node:fs'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { WEB_BUILD_DIR } from '../../src/http/console.ts'
import { type GitHubFake, startGitHubFake } from '../fakes/github.ts'
import { DEFAULT_FAKE_API_KEY, type OpenAiFake, startOpenAiFake } from '../fakes/openai.ts'
import { startVercelFake, type VercelFake } from '../fakes/vercel.ts'
import {
  type PlatformHarness,
  type PlatformHarnessOptions,
  startPlatform,
  uniqueEmail,
} from '../helpers/apps.ts'
import { freePort } from '../helpers/ports.ts'
import { CHROMIUM, launchChromium, pageOpener } from './console.ts'

export const GITHUB_TOKEN = 'ghp_console_test_token_0123456789'
export const VERCEL_TOKEN = 'vercel_console_test_token_0123456789'
export const OPENAI_API_KEY = DEFAULT_FAKE_API_KEY
export const TEMPLATE = 'curio/website-template'
export const PASSWORD = 'a good password'

/** A user of the platform, made through the API: their login and an access token for arranging. */
export interface ConsoleUser {
  id: string
  name: string
  email: string
  password: string
  accessToken: string
}

export interface PlatformConsoleHarness {
  /** The platform's base URL, e.g. http://127.0.0.1:41234. */
  url: string
  platform: PlatformHarness
  openai: OpenAiFake
  github: GitHubFake
  vercel: VercelFake
  browser: Browser
  /** What a website repository's workflow does when dispatched; without a handler, the default again: a Vercel deployment to READY. */
  onWorkflow: (handler?: (repo: string) => void) => void
  /** A new browser context (its own storage) with one page, at `width` px wide. */
  newPage(options?: { width?: number; height?: number }): Promise<Page>
  /** A new account, made through the API. */
  user(name?: string): Promise<ConsoleUser>
  /** A new account, and a page signed in as it through the console's form, opened at `path` under /console. */
  signedIn(
    path?: string,
    options?: { width?: number; user?: ConsoleUser },
  ): Promise<{ page: Page; user: ConsoleUser }>
  /** Calls the API as `user` (their access token). */
  api<T = unknown>(
    user: ConsoleUser,
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: T }>
  /** Enables the OpenAI, GitHub and Vercel plugins for `user`, with the stand-ins' keys and address. */
  enableProviders(user: ConsoleUser): Promise<void>
  close(): Promise<void>
}

export async function startPlatformConsole(
  options: PlatformHarnessOptions = {},
): Promise<PlatformConsoleHarness> {
  if (!existsSync(join(WEB_BUILD_DIR, 'console', 'index.html')))
    throw new Error('The platform console is not built: run `npm run build:web` (npm install builds it)')
  if (!existsSync(CHROMIUM))
    throw new Error(`No Chromium at ${CHROMIUM}: install it with \`apt-get install -y chromium\``)
  const openai = await startOpenAiFake()
  const github = await startGitHubFake({ token: GITHUB_TOKEN, login: 'ada' })
  github.addTemplate(TEMPLATE, {
    '.github/workflows/deploy_vercel.yaml':
      'name: Deploy to Vercel\non:\n  workflow_dispatch:\n  push:\njobs: {}\n',
    'package.json': '{"name":"website"}\n',
  })
  let platform: PlatformHarness | undefined
  const vercel = await startVercelFake({
    token: VERCEL_TOKEN,
    now: () => platform?.clock.nowMs() ?? Date.now(),
  })
  /** By default a dispatched workflow makes a Vercel deployment QUEUED → BUILDING → READY, one step a read. */
  const deploysReady = (repo: string) => {
    const project = repo.split('/')[1] ?? repo
    vercel.createDeployment(project, {
      states: ['QUEUED', 'BUILDING', 'READY'],
      advanceOnRead: true,
      url: `${project}-abc123.vercel.app`,
    })
  }
  let workflow = deploysReady
  github.onDispatch(({ repo }) => workflow(repo))

  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  platform = await startPlatform({
    ...options,
    env: {
      RATE_LIMIT_BYPASS_LOCALHOST: 'true',
      OPENAI_API_URL: openai.url,
      GITHUB_API_URL: github.url,
      GITHUB_RETRY_BASE_MS: '1',
      VERCEL_API_URL: vercel.url,
      WEBSITE_TEMPLATE_REPOSITORY: TEMPLATE,
      WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
      // The harness clock stands still: every poll after the first is due at once, so a verification moves
      // as fast as the Vercel stand-in's states do.
      DEPLOY_POLL_INTERVAL_MS: '1',
      DEPLOY_DISPATCH_RETRY_DELAY_MS: '10',
      DEPLOY_BATCH_DELAY_MS: '20',
      ...options.env,
    },
  })
  await platform.app.listen({ port, host: '127.0.0.1' })
  const browser = await launchChromium()
  const pages = pageOpener(browser, url)

  const api = async <T>(user: ConsoleUser, method: string, path: string, body?: unknown) => {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${user.accessToken}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    const text = await res.text()
    return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T }
  }

  const user = async (name = 'Ada Lovelace'): Promise<ConsoleUser> => {
    const email = uniqueEmail('console')
    const res = await fetch(`${url}/api/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password: PASSWORD, name }),
    })
    if (res.status !== 201) throw new Error(`register: ${res.status} ${await res.text()}`)
    const body = (await res.json()) as { user: { id: string }; accessToken: string }
    return { id: body.user.id, name, email, password: PASSWORD, accessToken: body.accessToken }
  }

  const newPage = pages.open

  const enable = async (who: ConsoleUser, pluginId: string, body: object) => {
    const res = await api(who, 'POST', `/api/plugins/${pluginId}/enable`, body)
    if (res.status !== 200) throw new Error(`enable ${pluginId}: ${res.status} ${JSON.stringify(res.body)}`)
  }

  return {
    url,
    platform,
    openai,
    github,
    vercel,
    browser,
    onWorkflow: (handler) => {
      workflow = handler ?? deploysReady
    },
    newPage,
    user,
    api,
    async enableProviders(who) {
      await enable(who, 'openai', { secretSettings: { apiKey: OPENAI_API_KEY } })
      await enable(who, 'github', { secretSettings: { token: GITHUB_TOKEN } })
      await enable(who, 'vercel', { secretSettings: { token: VERCEL_TOKEN } })
    },
    async signedIn(path = '/', options = {}) {
      const who = options.user ?? (await user())
      const page = await newPage(options.width ? { width: options.width } : {})
      await page.goto(`/console${path === '/' ? '' : path}`)
      await page.getByLabel('Email').fill(who.email)
      await page.getByLabel('Password').fill(who.password)
      await page.getByRole('button', { name: 'Sign in' }).click()
      await page.getByRole('button', { name: 'Sign out' }).waitFor()
      return { page, user: who }
    },
    async close() {
      await pages.closeAll()
      await platform?.close()
      await openai.close()
      await github.close()
      await vercel.close()
      pages.failOnPageErrors()
    },
  }
}
