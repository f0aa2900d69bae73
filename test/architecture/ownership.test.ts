/**
 * One owner per table: a table belongs to the module folder whose `tables.ts` defines it, and only that
 * module inserts, updates or deletes its rows. Other modules call the owner's service, passing their
 * transaction where the change must be atomic. This test reads the source (TypeScript's parser, no type
 * checking) and names every write into another module's table.
 */
import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, posix } from 'node:path'
import { describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'

interface Source {
  /** The path from the repository's root, with `/`: `src/directory/items/service.ts`. */
  path: string
  text: string
}

interface Table {
  /** The module folder whose `tables.ts` defines it: `directory/items`. */
  owner: string
  /** Its SQL name with the schema: `directory.items`. */
  name: string
}

interface Write {
  file: string
  line: number
  verb: 'insert' | 'update' | 'delete'
  table: Table
  /** The module folder the writing file is in (`directory/reports`), or its top folder (`db`). */
  writer: string
}

const VERBS = ['insert', 'update', 'delete'] as const
type Verb = (typeof VERBS)[number]
const isVerb = (name: string): name is Verb => (VERBS as readonly string[]).includes(name)

/**
 * The writes a module may make though it does not own the table: those of the files under `under`, into
 * the tables `owner` owns (any, without one).
 */
const EXCEPTIONS: { under: string; owner?: string; reason: string }[] = [
  { under: 'src/directory/seed/', reason: 'the demo seeder fills every table of an empty directory' },
]

const excepted = (write: Write) =>
  EXCEPTIONS.find(
    (exception) =>
      write.file.startsWith(exception.under) && (!exception.owner || exception.owner === write.table.owner),
  )

/** The module folder of a file: `src/<service>/<module>/…`, else its folder under `src/`. */
function moduleOf(path: string): string {
  const parts = path.split('/')
  if ((parts[1] === 'directory' || parts[1] === 'platform') && parts.length > 3)
    return `${parts[1]}/${parts[2]}`
  return parts.length > 2 ? (parts[1] as string) : (parts[1] as string).replace(/\.ts$/, '')
}

const parse = (source: Source) => ts.createSourceFile(source.path, source.text, ts.ScriptTarget.Latest, true)

/** The table a `<schema>.table('name', …)` or `pgTable('name', …)` call defines, with its SQL name. */
function tableCall(node: ts.Expression | undefined): string | undefined {
  if (!node || !ts.isCallExpression(node)) return undefined
  const callee = node.expression
  const name = ts.isPropertyAccessExpression(callee)
    ? callee.name.text
    : ts.isIdentifier(callee)
      ? callee.text
      : ''
  const first = node.arguments[0]
  if ((name !== 'table' && name !== 'pgTable') || !first || !ts.isStringLiteral(first)) return undefined
  const schema =
    ts.isPropertyAccessExpression(callee) && ts.isIdentifier(callee.expression)
      ? callee.expression.text.replace(/Schema$/, '')
      : 'public'
  return `${schema}.${first.text}`
}

/**
 * Every `tables.ts` file's exports that are tables: those it defines (owned by its folder) and those it
 * re-exports with `export * from` (the service-wide lists, `src/directory/tables.ts`).
 */
function tablesByFile(sources: Source[]): Map<string, Map<string, Table>> {
  const files = new Map(sources.filter((s) => s.path.endsWith('/tables.ts')).map((s) => [s.path, parse(s)]))
  const result = new Map<string, Map<string, Table>>()
  const visit = (path: string): Map<string, Table> => {
    const known = result.get(path)
    if (known) return known
    const tables = new Map<string, Table>()
    result.set(path, tables)
    const file = files.get(path)
    for (const statement of file?.statements ?? []) {
      if (ts.isVariableStatement(statement)) {
        for (const declaration of statement.declarationList.declarations) {
          const name = tableCall(declaration.initializer)
          if (name && ts.isIdentifier(declaration.name)) {
            tables.set(declaration.name.text, { owner: moduleOf(path), name })
          }
        }
      } else if (
        ts.isExportDeclaration(statement) &&
        !statement.exportClause &&
        statement.moduleSpecifier &&
        ts.isStringLiteral(statement.moduleSpecifier)
      ) {
        const target = posix.join(posix.dirname(path), statement.moduleSpecifier.text)
        for (const [name, table] of visit(target)) tables.set(name, table)
      }
    }
    return tables
  }
  for (const path of files.keys()) visit(path)
  return result
}

/**
 * The functions that write a table they are given (`deleteExpired(db, table, …)`), by name, with the verb
 * and which argument is the table: a call of one with a table writes that table.
 */
function writeHelpersIn(sources: Source[]): Map<string, { verb: Verb; tableArgument: number }> {
  const helpers = new Map<string, { verb: Verb; tableArgument: number }>()
  for (const source of sources) {
    const visit = (node: ts.Node) => {
      const named =
        ts.isFunctionDeclaration(node) && node.name
          ? { name: node.name.text, fn: node }
          : ts.isVariableDeclaration(node) &&
              ts.isIdentifier(node.name) &&
              node.initializer &&
              (ts.isArrowFunction(node.initializer) || ts.isFunctionExpression(node.initializer))
            ? { name: node.name.text, fn: node.initializer }
            : undefined
      if (named) {
        const parameters = named.fn.parameters.map((parameter) => parameter.name.getText())
        const find = (inner: ts.Node) => {
          if (ts.isCallExpression(inner) && ts.isPropertyAccessExpression(inner.expression)) {
            const verb = inner.expression.name.text
            const argument = inner.arguments[0]
            const index = argument && ts.isIdentifier(argument) ? parameters.indexOf(argument.text) : -1
            if (isVerb(verb) && index >= 0) helpers.set(named.name, { verb, tableArgument: index })
          }
          ts.forEachChild(inner, find)
        }
        if (named.fn.body) find(named.fn.body)
      }
      ts.forEachChild(node, visit)
    }
    visit(parse(source))
  }
  return helpers
}

/** Every insert, update and delete the sources make of a known table. */
function writesIn(sources: Source[]): Write[] {
  const tablesOf = tablesByFile(sources)
  const helpers = writeHelpersIn(sources)
  const bySqlName = new Map(
    [...tablesOf.values()].flatMap((tables) => [...tables.values()].map((t) => [t.name, t])),
  )
  const writes: Write[] = []
  for (const source of sources) {
    const file = parse(source)
    const named = new Map<string, Table>(tablesOf.get(source.path) ?? [])
    const namespaces = new Map<string, Map<string, Table>>()
    for (const statement of file.statements) {
      if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) continue
      const tables = tablesOf.get(posix.join(posix.dirname(source.path), statement.moduleSpecifier.text))
      const bindings = statement.importClause?.namedBindings
      if (!tables || !bindings) continue
      if (ts.isNamespaceImport(bindings)) namespaces.set(bindings.name.text, tables)
      else {
        for (const element of bindings.elements) {
          const table = tables.get((element.propertyName ?? element.name).text)
          if (table) named.set(element.name.text, table)
        }
      }
    }
    const tableAt = (node: ts.Node | undefined): Table | undefined => {
      if (node && ts.isIdentifier(node)) return named.get(node.text)
      if (node && ts.isPropertyAccessExpression(node) && ts.isIdentifier(node.expression)) {
        return namespaces.get(node.expression.text)?.get(node.name.text)
      }
      return undefined
    }
    const record = (at: ts.Node, verb: Verb, table: Table) => {
      const line = file.getLineAndCharacterOfPosition(at.getStart(file)).line + 1
      writes.push({ file: source.path, line, verb, table, writer: moduleOf(source.path) })
    }
    const sqlVerb = (text: string): Verb | undefined => {
      const match = /\b(insert\s+into|update|delete\s+from)\s*$/i.exec(text)
      return match ? (((match[1] as string).split(/\s/)[0] as string).toLowerCase() as Verb) : undefined
    }
    const visit = (node: ts.Node) => {
      // `const ps = paymentSubscriptions`: a shorter name for a table is the table.
      if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name)) {
        const table = tableAt(node.initializer)
        if (table) named.set(node.name.text, table)
      }
      if (ts.isCallExpression(node)) {
        const callee = node.expression
        if (ts.isPropertyAccessExpression(callee) && isVerb(callee.name.text)) {
          const table = tableAt(node.arguments[0])
          if (table) record(callee.name, callee.name.text as Verb, table)
        }
        const helper = ts.isIdentifier(callee) ? helpers.get(callee.text) : undefined
        const table = helper && tableAt(node.arguments[helper.tableArgument])
        if (helper && table) record(callee, helper.verb, table)
      }
      if (ts.isTemplateExpression(node)) {
        let before = node.head.text
        for (const span of node.templateSpans) {
          const verb = sqlVerb(before)
          const table = tableAt(span.expression)
          if (verb && table) record(span.expression, verb, table)
          before = span.literal.text
        }
      }
      if (ts.isStringLiteralLike(node) || ts.isTemplateLiteralToken(node)) {
        const text = node.text
        for (const match of text.matchAll(
          /\b(insert\s+into|update|delete\s+from)\s+"?(\w+)"?\."?(\w+)"?/gi,
        )) {
          const table = bySqlName.get(`${match[2]}.${match[3]}`)
          if (table)
            record(node, ((match[1] as string).split(/\s/)[0] as string).toLowerCase() as Verb, table)
        }
      }
      ts.forEachChild(node, visit)
    }
    visit(file)
  }
  return writes
}

/** The writes into a table another module owns, less the listed exceptions. */
const foreign = (writes: Write[]) => writes.filter((write) => write.writer !== write.table.owner)
const foreignWrites = (sources: Source[]) => foreign(writesIn(sources)).filter((write) => !excepted(write))

const describeWrite = (write: Write) =>
  `${write.file}:${write.line} ${write.verb}s ${write.table.name} owned by ${write.table.owner}`

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..')

function sourcesUnder(folder: string): Source[] {
  return readdirSync(join(ROOT, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => {
      const path = posix.join(posix.relative(ROOT, entry.parentPath).split('\\').join('/'), entry.name)
      return { path, text: readFileSync(join(ROOT, path), 'utf8') }
    })
}

describe('table ownership', () => {
  const sources = sourcesUnder('src')

  const writes = writesIn(sources)

  it('finds the tables and the writes to check: every table has an owner, and the scan sees writes', () => {
    const tables = [...tablesByFile(sources).values()].flatMap((t) => [...t.values()])
    const names = new Set(tables.map((table) => table.name))
    assert.ok(names.size >= 40, `the tables.ts files define the schema's tables: ${[...names].join(', ')}`)
    assert.ok(names.has('directory.client_profiles') && names.has('platform.works'))
    assert.ok(writes.length >= 150, `the scan sees the source's writes (${writes.length})`)
    assert.deepEqual(writeHelpersIn(sources).get('deleteExpired'), { verb: 'delete', tableArgument: 1 })
    const raw = writes.filter((write) =>
      /^src\/platform\/(api-keys\/usage|activity-log\/reconcile)\.ts$/.test(write.file),
    )
    assert.ok(raw.length >= 3, 'it sees the writes in raw SQL (api-keys usage, activity-log reconcile)')
  })

  it('no module inserts, updates or deletes a table another module owns', () => {
    assert.deepEqual(
      foreign(writes)
        .filter((write) => !excepted(write))
        .map(describeWrite),
      [],
    )
  })

  it('lists only exceptions that are used', () => {
    const used = new Set(foreign(writes).map(excepted))
    const unused = EXCEPTIONS.filter((exception) => !used.has(exception))
    assert.deepEqual(unused, [])
  })

  it('names the file, line, table and owner of a foreign write, in Drizzle calls and raw SQL', () => {
    const fake: Source[] = [
      {
        path: 'src/directory/comments/tables.ts',
        text: "export const comments = directorySchema.table('comments', { id: uuid('id') })\n",
      },
      { path: 'src/directory/tables.ts', text: "export * from './comments/tables.ts'\n" },
      {
        path: 'src/db/queries.ts',
        text: 'export async function deleteExpired(db, table, expiresAt, now) {\n  await db.delete(table).where(lte(expiresAt, now))\n}\n',
      },
      {
        path: 'src/directory/reports/service.ts',
        text: [
          "import { comments as c } from '../comments/tables.ts'",
          "import * as all from '../tables.ts'",
          'await tx.delete(c).where(eq(c.id, id))',
          'await tx',
          '  .update(all.comments)',
          '  .set({ hidden: true })',
          // biome-ignore lint/suspicious/noTemplateCurlyInString: the fake source's own SQL template
          'await tx.execute(sql`delete from ${c} where id = ${id}`)',
          "await tx.execute(sql.raw('insert into directory.comments (id) values (1)'))",
          'await deleteExpired(tx, c, c.createdAt, now)',
          'const short = c',
          'await tx.insert(short).values(row)',
          'await tx.select().from(c)',
        ].join('\n'),
      },
      {
        path: 'src/directory/comments/service.ts',
        text: "import { comments } from './tables.ts'\nawait tx.delete(comments)\n",
      },
    ]
    assert.deepEqual(foreignWrites(fake).map(describeWrite), [
      'src/directory/reports/service.ts:3 deletes directory.comments owned by directory/comments',
      'src/directory/reports/service.ts:5 updates directory.comments owned by directory/comments',
      'src/directory/reports/service.ts:7 deletes directory.comments owned by directory/comments',
      'src/directory/reports/service.ts:8 inserts directory.comments owned by directory/comments',
      'src/directory/reports/service.ts:9 deletes directory.comments owned by directory/comments',
      'src/directory/reports/service.ts:11 inserts directory.comments owned by directory/comments',
    ])
    assert.equal(writesIn(fake).length, 7, "the owner's own delete is a write, and not a foreign one")
  })
})
