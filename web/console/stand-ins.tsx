/**
 * The demo's notice, above every screen (sign-in included): on an instance started by `npm run demo`, the
 * platform's `GET /` names the providers it reaches through local stand-ins, and this says which ones and
 * what therefore stays on this machine, so no one takes a demo generation or deploy for a real one.
 * Nothing shows on a real instance.
 */
import { useEffect, useState } from 'preact/hooks'
import type { Answer } from './api.ts'
import './stand-ins.css'

type StandIn = NonNullable<Answer<'/'>['demo']>['standIns'][number]

/** The platform's stand-ins, from its public `GET /` (no token: it is the same for everyone). */
async function readStandIns(): Promise<readonly StandIn[]> {
  const res = await fetch(new URL('/', window.location.origin), { headers: { accept: 'application/json' } })
  if (!res.ok) return []
  const about = (await res.json()) as Answer<'/'>
  return about.demo?.standIns ?? []
}

/** "A", "A and B", "A, B and C". */
function listed(words: readonly string[]): string {
  return words.length < 2 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`
}

/** What stays on this machine: generating with an OpenAI stand-in, deploying when GitHub and Vercel both are. */
function localWork(providers: ReadonlySet<string>): string {
  const local = [
    ...(providers.has('openai') ? ['generation'] : []),
    ...(providers.has('github') && providers.has('vercel') ? ['deploys'] : []),
  ]
  if (local.length === 0) return ''
  return `, so ${listed(local)} ${local.length === 1 ? 'stays' : 'stay'} on this machine`
}

/** The notice, when the platform runs on stand-ins; nothing otherwise (or when it cannot be asked). */
export function StandIns() {
  const [standIns, setStandIns] = useState<readonly StandIn[]>([])
  useEffect(() => {
    readStandIns().then(setStandIns, () => {})
  }, [])
  if (standIns.length === 0) return null
  const names = listed(standIns.map((standIn) => standIn.name))
  const plural = standIns.length > 1
  return (
    <aside class="banner banner-warning stand-ins" aria-label="Demo">
      <strong>Demo:</strong>{' '}
      <span>
        {names} {plural ? 'are local stand-ins' : 'is a local stand-in'}
        {localWork(new Set(standIns.map((standIn) => standIn.provider)))}.
      </span>
    </aside>
  )
}
