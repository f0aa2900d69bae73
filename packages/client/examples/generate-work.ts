// Signs in to the platform, enables the OpenAI plugin, creates a work, generates its items and reads the
// activity log. Run: CURIO_EMAIL=… CURIO_PASSWORD=… OPENAI_API_KEY=… npm exec -- node generate-work.ts
import { createPlatformClient } from '@curio/client'

const baseUrl = process.env.CURIO_PLATFORM_URL ?? 'http://localhost:3000'
const email = process.env.CURIO_EMAIL ?? ''
const password = process.env.CURIO_PASSWORD ?? ''

const login = await createPlatformClient({ baseUrl }).POST('/api/auth/login', { body: { email, password } })
if (login.error) throw new Error(`Sign-in refused: ${login.error.code} ${login.error.message}`)

// The access token lasts 15 minutes: the client renews it with the refresh token when it expires.
const platform = createPlatformClient({
  baseUrl,
  accessToken: login.data.accessToken,
  refreshToken: login.data.refreshToken,
})

// New works get the account's enabled AI provider.
const plugin = await platform.POST('/api/plugins/{pluginId}/enable', {
  params: { path: { pluginId: 'openai' } },
  body: { secretSettings: { apiKey: process.env.OPENAI_API_KEY ?? '' } },
})
if (plugin.error) throw new Error(`OpenAI plugin refused: ${plugin.error.message}`)

const created = await platform.POST('/api/works', { body: { name: 'Espresso grinders' } })
if (created.error) throw new Error(`Work refused: ${created.error.message}`)
const work = created.data
console.log(`Created work ${work.name} (${work.slug})`)

const started = await platform.POST('/api/works/{id}/generate', {
  params: { path: { id: work.id } },
  body: { prompt: 'Hand and electric espresso grinders, with their makers' },
})
if (started.error) throw new Error(`Generation refused: ${started.error.message}`)

// Generation runs as a background job: follow the work's status until the run ends.
let status: string = started.data.status
while (status === 'PENDING' || status === 'GENERATING') {
  await new Promise((resolve) => setTimeout(resolve, 500))
  const current = await platform.GET('/api/works/{id}', { params: { path: { id: work.id } } })
  if (current.error) throw new Error(current.error.message)
  status = current.data.generateStatus.status
}
console.log(`Generation ${status}`)

const items = await platform.GET('/api/works/{id}/items', { params: { path: { id: work.id } } })
if (items.error) throw new Error(items.error.message)
for (const item of items.data.items) console.log(`- ${item.name}`)

const log = await platform.GET('/api/activity-log', { params: { query: { workId: work.id } } })
if (log.error) throw new Error(log.error.message)
for (const entry of log.data.activities) console.log(`${entry.actionType} ${entry.status}: ${entry.summary}`)
