import { readFileSync } from 'node:fs'

/** Curio's version, as package.json states it. */
export const VERSION: string = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version
