/**
 * `npm run cycles` (part of `npm run check`): no import cycle between files or between modules, and no
 * import that does not resolve. Type-only imports count (`tsPreCompilationDeps`): a cycle of types still
 * means neither file can be read, moved or tested without the other.
 *
 * A module is a folder: a feature (`src/directory/items`, `src/platform/works`), an outside system
 * (`src/integrations/twenty`) or a shared layer (`src/lib`, `src/db`, `src/http`). dependency-cruiser's
 * `scope: 'folder'` rule derives the folder graph from the files' imports (an import of `items/tables.ts`
 * is an edge to `src/directory/items`) and finds its cycles. A file loose at a service's root
 * (`src/directory/tables.ts`, `src/platform/events.ts`) belongs to that service's folder, which holds all
 * of its modules, so a cycle through one of those shows at file level only.
 */

/**
 * Cycles known today, each named by what it ties; an entry goes with the change that breaks it. Only a
 * dependency between two members of one entry is excused, so a new cycle still fails. Never add one.
 */
const knownFileCycles = {}

const knownModuleCycles = {}

/** `^(a|b)$` for exact paths. */
const exactly = (paths) => `^(${[...paths].map((path) => path.replaceAll('.', '\\.')).join('|')})$`

/**
 * The no-cycle rule for one scope, minus the known cycles: one rule for every path outside them, and for
 * each member one rule that skips only the dependencies to its partners in a known cycle.
 */
function noCycles(name, scope, comment, known) {
  const partners = new Map()
  for (const members of Object.values(known)) {
    for (const member of members) {
      const others = partners.get(member) ?? new Set()
      for (const other of members) if (other !== member) others.add(other)
      partners.set(member, others)
    }
  }
  const rule = { name, severity: 'error', scope, comment }
  return [
    { ...rule, from: partners.size > 0 ? { pathNot: exactly(partners.keys()) } : {}, to: { circular: true } },
    ...[...partners].map(([member, others]) => ({
      ...rule,
      from: { path: exactly([member]) },
      to: { circular: true, pathNot: exactly(others) },
    })),
  ]
}

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    ...noCycles(
      'no-circular',
      'module',
      'These files import each other (directly or around a loop). Move what both need into a file below ' +
        'both, or hand one side what it needs (a function, an interface) instead of importing it.',
      knownFileCycles,
    ),
    ...noCycles(
      'no-circular-modules',
      'folder',
      'These modules import each other. Usually one side imports the other’s table or type: move it to ' +
        'its owner or to a shared file below both, or let the lower module declare the small interface it ' +
        'needs (ItemUsage, ItemCollections, WorkAuditor) and app.ts hand the other module’s implementation in.',
      knownModuleCycles,
    ),
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'This import resolves to no file or package: a typo, a moved file or a missing dependency.',
      from: {},
      // `mdast` is a package of types only (@types/mdast, imported with `import type`), which tsc checks.
      to: { couldNotResolve: true, pathNot: '^mdast$' },
    },
  ],
  options: {
    // Imports and `require` calls; a `/// <reference types>` is TypeScript's lookup among @types, which tsc checks.
    moduleSystems: ['es6', 'cjs'],
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.json'],
    },
  },
}
