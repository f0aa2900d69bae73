/**
 * Which test files use the Postgres and Redis servers of a second pass: those whose own code, or any file
 * it imports (relative imports, followed through), reads TEST_DATABASE_URL or TEST_REDIS_URL. The others
 * (pure functions, the stand-ins' own tests, the documentation's checks) give the same answer on any
 * database, so `npm test` runs them once, on the embedded pass.
 */
import { existsSync, readFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'

const SERVER_SETTINGS = /\bTEST_(DATABASE|REDIS)_URL\b/
const RELATIVE_IMPORT = /(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g

export function usesServers(file: string, seen = new Set<string>()): boolean {
  const path = resolve(file)
  if (seen.has(path)) return false
  seen.add(path)
  if (!existsSync(path)) return false
  const source = readFileSync(path, 'utf8')
  if (SERVER_SETTINGS.test(source)) return true
  for (const [, specifier] of source.matchAll(RELATIVE_IMPORT)) {
    if (specifier && /\.(ts|mjs|js)$/.test(specifier) && usesServers(resolve(dirname(path), specifier), seen))
      return true
  }
  return false
}
