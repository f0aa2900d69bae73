/**
 * The Vite configuration of Curio's browser consoles: one build per console, each from its folder under
 * `web/` into `dist/web/<name>/`, served by its service under `base`. scripts/build-web.ts builds them all
 * (`npm install` runs it); `CONSOLE=admin npx vite --config web/vite.config.ts` serves one for development.
 */
import { join } from 'node:path'
import type { UserConfig } from 'vite'

const repo = join(import.meta.dirname, '..')

/** Each console: its folder under web/ and the path its service serves it under. */
export const CONSOLES = {
  admin: { base: '/admin/', service: 'directory', devTarget: 'http://localhost:3001' },
  console: { base: '/console/', service: 'platform', devTarget: 'http://localhost:3000' },
} as const

export type ConsoleName = keyof typeof CONSOLES

export function consoleConfig(name: ConsoleName): UserConfig {
  const console = CONSOLES[name]
  return {
    root: join(repo, 'web', name),
    base: console.base,
    logLevel: 'warn',
    oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
    build: {
      outDir: join(repo, 'dist', 'web', name),
      emptyOutDir: true,
      target: 'es2022',
      // Everything is a file of its own: the page's policy allows no inline script or data: font.
      assetsInlineLimit: 0,
      reportCompressedSize: false,
      // .vite/manifest.json: which files each screen needs (bench/admin-console.ts weighs them; not served).
      manifest: true,
    },
    // `vite` in development: API calls go to the running service as if from its own page (the directory
    // refuses a signed-in write from another origin).
    server: { proxy: { '/api': { target: console.devTarget, headers: { origin: console.devTarget } } } },
  }
}

export default consoleConfig((process.env.CONSOLE as ConsoleName | undefined) ?? 'admin')
