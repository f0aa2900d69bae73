// Plain JavaScript on purpose: loaded first by src/cli.mjs (and by lib/module-hooks.ts, for the entries
// that load that first), it turns on V8's compile cache (in `.cache/node-compile` of the project, or
// NODE_COMPILE_CACHE when set) before the first TypeScript file is read. Node 24 keeps each file's
// type-stripped code in that cache; with it warm, Node never loads its TypeScript stripper at all (amaro,
// swc built to WebAssembly), which costs every process about 25 MB of memory and 80 ms of its start when
// the first `.ts` file would otherwise load it.
import { enableCompileCache, getCompileCacheDir } from 'node:module'
import { fileURLToPath } from 'node:url'

if (!getCompileCacheDir()) {
  enableCompileCache(fileURLToPath(new URL('../../.cache/node-compile', import.meta.url)))
}
