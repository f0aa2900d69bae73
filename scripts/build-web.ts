/**
 * Builds the browser consoles (web/) into dist/web/<name>/ with Vite. `npm install` runs it (through
 * scripts/prepare.ts), so a fresh clone serves them; `npm run build:web` runs it again after a change.
 * `--if-needed` builds only when a source file is newer than the last build.
 */
import { existsSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'

const repo = join(import.meta.dirname, '..')
const web = join(repo, 'web')

function newest(path: string): number {
  const stat = statSync(path)
  if (!stat.isDirectory()) return stat.mtimeMs
  let latest = stat.mtimeMs
  for (const name of readdirSync(path)) latest = Math.max(latest, newest(join(path, name)))
  return latest
}

export async function buildConsoles(options: { ifNeeded?: boolean } = {}): Promise<string[]> {
  // Imported by name, so the root type-check does not take in Vite's types (they bring the DOM's, which
  // change Node's own fetch types for the whole program); web/tsconfig.json checks the config itself.
  const load = (specifier: string) => import(specifier)
  const { build } = (await load('vite')) as { build: (config: unknown) => Promise<unknown> }
  const { CONSOLES, consoleConfig } = (await load('../web/vite.config.ts')) as {
    CONSOLES: Record<string, unknown>
    consoleConfig: (name: string) => unknown
  }
  const built: string[] = []
  const sources = Math.max(newest(web), newest(join(repo, 'packages', 'client', 'src', 'generated')))
  for (const name of Object.keys(CONSOLES)) {
    const index = join(repo, 'dist', 'web', name, 'index.html')
    if (options.ifNeeded && existsSync(index) && statSync(index).mtimeMs >= sources) continue
    await build(consoleConfig(name))
    built.push(name)
  }
  return built
}

if (import.meta.main) {
  const started = performance.now()
  const built = await buildConsoles({ ifNeeded: process.argv.includes('--if-needed') })
  const took = Math.round(performance.now() - started)
  process.stdout.write(
    built.length
      ? `curio: built the ${built.join(' and ')} console${built.length > 1 ? 's' : ''} in ${took} ms\n`
      : 'curio: the consoles are up to date\n',
  )
}
