/**
 * The platform console's plugins in Chromium: OpenAI enabled for an account with an API key that is
 * masked once saved and never in the page again, the provider's models offered as the model, a bad
 * setting said at its field, the key removed, the plugin disabled; on a work's Plugins tab, an enable refused because the
 * account has not enabled the plugin (and why), OpenAI enabled, made the work's AI provider and given a
 * model of the work's own; a viewer told they do not see a work's plugins; the plugin's page at 375 px.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { and, eq } from 'drizzle-orm'
import { workPlugins } from '../../src/platform/plugins/tables.ts'
import { fieldError, screenshot, seriousViolations } from './console.ts'
import { OPENAI_API_KEY, type PlatformConsoleHarness, startPlatformConsole } from './platform.ts'

let h: PlatformConsoleHarness

before(async () => {
  h = await startPlatformConsole()
})
after(async () => {
  await h?.close()
})

interface PluginDetails {
  enabled: boolean
  settings: Record<string, unknown>
}
interface WorkPlugin {
  id: string
  enabled: boolean
  activeCapability: string | null
  settings: Record<string, unknown>
}

/** What the key looks like once saved: the mask and its last 4 characters. */
const MASKED = `••••${OPENAI_API_KEY.slice(-4)}`

describe('platform console: plugins', () => {
  it('enables OpenAI with an API key never shown again, says a bad setting at its field, and disables it', async () => {
    const { page, user } = await h.signedIn('/plugins')
    await page.getByRole('heading', { name: 'Plugins', level: 1 }).waitFor()
    await page.locator('table[aria-busy="false"]').waitFor()
    const row = page.getByRole('row').filter({ hasText: 'OpenAI' })
    await row.getByText('Not enabled').waitFor()
    assert.match((await row.textContent()) ?? '', /AI provider/)
    assert.deepEqual(await seriousViolations(page), [])
    await screenshot(page, 'plugins', 'console')

    await row.getByRole('link', { name: 'OpenAI', exact: true }).click()
    await page.getByRole('heading', { name: 'OpenAI', level: 1 }).waitFor()
    assert.match(page.url(), /\/console\/plugins\/openai$/)
    const key = page.getByLabel('API key', { exact: true })
    assert.equal(await key.getAttribute('type'), 'password')
    await key.fill(OPENAI_API_KEY)
    await page.getByRole('button', { name: 'Enable', exact: true }).click()
    await page.getByText('OpenAI enabled').waitFor()
    await page.getByText(`Saved (${MASKED})`).waitFor()
    assert.equal(await key.inputValue(), '')
    assert.equal((await page.content()).includes(OPENAI_API_KEY), false)
    // The provider lists its models with the saved key: the model is chosen from them.
    const model = page.getByRole('combobox', { name: 'Model' })
    await model.getByRole('option', { name: 'gpt-4o', exact: true }).waitFor({ state: 'attached' })
    const stored = await h.api<PluginDetails>(user, 'GET', '/api/plugins/openai')
    assert.equal(stored.body.enabled, true)
    assert.equal(stored.body.settings.apiKey, MASKED)
    assert.deepEqual(await seriousViolations(page), [])
    await screenshot(page, 'plugin-settings', 'console')

    // Opened again, the page still has only the mask.
    await page.reload()
    await page.getByText(`Saved (${MASKED})`).waitFor()
    assert.equal((await page.content()).includes(OPENAI_API_KEY), false)

    await page.getByLabel('API base URL').fill('not an address')
    await page.getByRole('button', { name: 'Save settings' }).click()
    assert.match(await fieldError(page, page.getByLabel('API base URL')), /must/)
    assert.equal(
      (await h.api<PluginDetails>(user, 'GET', '/api/plugins/openai')).body.settings.baseUrl,
      undefined,
    )

    await page.getByRole('button', { name: 'Remove the saved API key' }).click()
    await page.getByRole('dialog').getByRole('button', { name: 'Remove' }).click()
    await page.getByText('API key removed').waitFor()
    await page.getByText('Missing: API key').waitFor()
    assert.equal(await page.getByText(`Saved (${MASKED})`).count(), 0)
    assert.equal(
      (await h.api<PluginDetails>(user, 'GET', '/api/plugins/openai')).body.settings.apiKey,
      undefined,
    )

    await page.getByRole('button', { name: 'Disable', exact: true }).click()
    await page.getByRole('dialog').getByRole('button', { name: 'Disable' }).click()
    await page.getByText('OpenAI disabled').waitFor()
    await page.getByRole('button', { name: 'Enable', exact: true }).waitFor()
    assert.equal((await h.api<PluginDetails>(user, 'GET', '/api/plugins/openai')).body.enabled, false)
  })

  it('a work’s plugins: a refused enable explained; OpenAI enabled, made the AI provider, given its own model', async () => {
    const user = await h.user()
    const work = await h.api<{ id: string }>(user, 'POST', '/api/works', { name: 'Tools directory' })
    const workId = work.body.id
    const { page } = await h.signedIn(`/works/${workId}/plugins`, { user })
    await page.getByRole('heading', { name: 'Plugins', level: 2 }).waitFor()
    await page.locator('table[aria-busy="false"]').waitFor()

    await page.getByRole('button', { name: 'Enable OpenAI' }).click()
    const refusal = page.getByRole('alert').filter({ hasText: 'could not be enabled for this work' })
    await refusal.waitFor()
    assert.match((await refusal.textContent()) ?? '', /not enabled for your account/)
    await refusal.getByRole('link', { name: 'Enable OpenAI for your account' }).waitFor()

    const enabled = await h.api(user, 'POST', '/api/plugins/openai/enable', {
      secretSettings: { apiKey: OPENAI_API_KEY },
    })
    assert.equal(enabled.status, 200)
    await page.getByRole('button', { name: 'Enable OpenAI' }).click()
    await page.getByText('OpenAI enabled for this work, as its AI provider').waitFor()
    assert.equal(await refusal.count(), 0)
    const provider = page.locator('dt:text-is("AI provider") + dd')
    await provider.getByText('OpenAI', { exact: true }).waitFor()

    // As after another AI provider took the role: OpenAI stays enabled for the work but provides nothing.
    await h.platform.databases.platform.db
      .update(workPlugins)
      .set({ activeCapability: null })
      .where(and(eq(workPlugins.workId, workId), eq(workPlugins.pluginId, 'openai')))
    await page.reload()
    await page.locator('table[aria-busy="false"]').waitFor()
    assert.equal(await provider.textContent(), 'None')
    await page.getByRole('button', { name: 'Make AI provider OpenAI' }).click()
    await page.getByText('OpenAI is now this work’s AI provider').waitFor()
    await provider.getByText('OpenAI', { exact: true }).waitFor()

    await page.getByRole('link', { name: 'OpenAI settings' }).click()
    assert.match(page.url(), /\/console\/works\/[^/]+\/plugins\?plugin=openai$/)
    await page.getByRole('heading', { name: 'OpenAI settings for this work' }).waitFor()
    const model = page.getByRole('combobox', { name: 'Model' })
    await model.getByRole('option', { name: 'gpt-4o', exact: true }).waitFor({ state: 'attached' })
    await page.getByText('the work uses the one saved in your account').waitFor()
    assert.deepEqual(await seriousViolations(page), [])
    await screenshot(page, 'work-plugins', 'console')
    await model.selectOption('gpt-4o')
    await page.getByRole('button', { name: 'Save work settings' }).click()
    await page.getByText('OpenAI settings of this work saved').waitFor()
    const listed = await h.api<{ plugins: WorkPlugin[] }>(user, 'GET', `/api/works/${workId}/plugins`)
    const openai = listed.body.plugins.find((plugin) => plugin.id === 'openai')
    assert.deepEqual(
      { enabled: openai?.enabled, active: openai?.activeCapability, model: openai?.settings.model },
      { enabled: true, active: 'ai-provider', model: 'gpt-4o' },
    )
    // The account's own model is untouched: the work's wins for this work only.
    assert.equal(
      (await h.api<PluginDetails>(user, 'GET', '/api/plugins/openai')).body.settings.model,
      undefined,
    )
  })

  it('a viewer is told only the owner and editors see a work’s plugins', async () => {
    const owner = await h.user()
    const viewer = await h.user('Grace Hopper')
    const work = await h.api<{ id: string }>(owner, 'POST', '/api/works', { name: 'Shared directory' })
    const invited = await h.api(owner, 'POST', `/api/works/${work.body.id}/members`, {
      email: viewer.email,
      role: 'viewer',
    })
    assert.equal(invited.status, 201, JSON.stringify(invited.body))
    const { page } = await h.signedIn(`/works/${work.body.id}/plugins`, { user: viewer })
    await page
      .getByText('Only the owner and editors of “Shared directory” see and change its plugins.')
      .waitFor()
    assert.equal(await page.getByRole('button', { name: 'Enable OpenAI' }).count(), 0)
  })

  it('at 375 px a plugin’s page fits the screen', async () => {
    const { page } = await h.signedIn('/settings/plugins/github', { width: 375 })
    await page.getByRole('heading', { name: 'GitHub', level: 1 }).waitFor()
    await page.getByLabel('Access token', { exact: true }).waitFor()
    const width = await page.evaluate('document.documentElement.scrollWidth')
    assert.ok(Number(width) <= 375, `the page is ${width} px wide`)
  })
})
