/**
 * Faster module loading, for the process' own start and for every test file's (loaded first, before
 * anything else is imported: `--import`, or the first static import of an entry that loads the rest
 * dynamically, as src/main.ts does). Importing this module installs them.
 *
 * Node 24's resolver, to tell an ES module's format, reads its package's `package.json` through a getter
 * that parses the whole `exports` map again on every resolution. drizzle-orm's is 179 KB, and each of its
 * ~110 files imports several others: about 3 s of CPU of the ~5 s it takes to load Curio's code went to
 * parsing that one file again and again. Two in-thread hooks (`module.registerHooks`) take those lookups
 * over where the answer is known without them, and leave everything else to Node:
 *
 * - a relative import (`./x.js`, `../x.mjs`) made from a file in `node_modules` is the file next to it;
 *   its format is its package's declared `"type"` (read once per folder). A package that declares no
 *   type, a file that is not there, or a `require` are Node's to resolve, as before.
 * - a package import (`drizzle-orm/pg-core`) from Curio's own code resolves to one file whichever of
 *   Curio's files asks: resolved once per specifier and import conditions.
 *
 * And V8's compile cache keeps compiled code, and Node 24 the TypeScript it stripped, between runs: it is
 * turned on by lib/compile-cache.mjs, which this module imports first in case an entry did not (an entry
 * that is itself TypeScript, like `node src/main.ts`, has had its own file stripped by then).
 */
import './compile-cache.mjs'
import { existsSync, readFileSync } from 'node:fs'
import { registerHooks } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT_URL = new URL('../../', import.meta.url).href
const NODE_MODULES = '/node_modules/'

type PackageType = 'module' | 'commonjs' | undefined

/** The declared "type" of the package a folder belongs to (undefined: none declared), per folder. */
const typeOfFolder = new Map<string, PackageType>()

function packageType(folder: string): PackageType {
  const walked: string[] = []
  let type: PackageType
  for (let current = folder; ; current = dirname(current)) {
    if (typeOfFolder.has(current)) {
      type = typeOfFolder.get(current)
      break
    }
    walked.push(current)
    const manifest = join(current, 'package.json')
    if (existsSync(manifest)) {
      const declared = (JSON.parse(readFileSync(manifest, 'utf8')) as { type?: unknown }).type
      type = declared === 'module' || declared === 'commonjs' ? declared : undefined
      break
    }
    if (dirname(current) === current) break
  }
  for (const folder of walked) typeOfFolder.set(folder, type)
  return type
}

/** Package imports from Curio's own code, resolved once each. */
const packageImports = new Map<string, ReturnType<ResolveHook>>()

type ResolveHook = NonNullable<Parameters<typeof registerHooks>[0]['resolve']>

const resolve: ResolveHook = (specifier, context, nextResolve) => {
  const parent = context.parentURL
  if (!parent?.startsWith('file:')) return nextResolve(specifier, context)
  const relative = specifier.startsWith('./') || specifier.startsWith('../')
  if (relative && parent.includes(NODE_MODULES) && context.conditions.includes('import')) {
    const url = new URL(specifier, parent)
    const path = fileURLToPath(url)
    if (path.endsWith('.mjs') && existsSync(path))
      return { url: url.href, format: 'module', shortCircuit: true }
    if (path.endsWith('.js') && existsSync(path)) {
      const format = packageType(dirname(path))
      if (format) return { url: url.href, format, shortCircuit: true }
    }
    return nextResolve(specifier, context)
  }
  const fromCurio = parent.startsWith(ROOT_URL) && !parent.includes(NODE_MODULES)
  if (fromCurio && /^(@[a-z0-9]|[a-z0-9])[^:]*$/.test(specifier)) {
    const key = `${specifier}\0${context.conditions.join(',')}`
    let resolved = packageImports.get(key)
    if (!resolved) {
      resolved = { ...nextResolve(specifier, context), shortCircuit: true }
      packageImports.set(key, resolved)
    }
    return resolved
  }
  return nextResolve(specifier, context)
}

// Installed on import: once per process, as a module is evaluated once.
registerHooks({ resolve })
