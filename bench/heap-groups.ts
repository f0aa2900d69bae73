/**
 * Who owns what in a heap snapshot, for bench:heap: every node gets an owner (a package, a folder of
 * src/, or a kind of object such as a TypeBox schema), then a group that also says whether it is code or
 * data. Groups partition the heap: each node counts once.
 *
 * A node's owner is its own when it says who made it, else that of its immediate dominator, the nearest
 * object that alone keeps it alive. A node says who made it when it is
 * - a Script (the module's source) or a SharedFunctionInfo: the script's URL → npm package or `src/<dir>`;
 *   code that ajv, fast-json-stringify or find-my-way generated with `new Function` is recognised by its
 *   parameters (`self,scope`, `validator,serializer`, `path,i` …);
 * - a closure: where its function is written; a closure context: where the closures that use it are;
 * - an object made by a constructor written in a script: that script (`Router` → find-my-way);
 * - a TypeBox schema (it has `~kind`), an OpenAPI document (`openapi` and `paths`), the cluster file a
 *   PGlite was loaded from (its `loadDataDir` option);
 * - a WebAssembly.Memory and its buffer: whoever holds the memory (PGlite's Emscripten module).
 * Objects of Node's own classes (Blob, Socket, EventEmitter…) and closures of Node's code take their
 * holder's owner: a Blob PGlite keeps is PGlite's. They are Node's only when nothing else dominates them.
 * What only the root (or several unrelated holders at once) keeps alive, and says nothing, is unattributed.
 */
import type { DominatorTree, HeapSnapshot } from './heap-snapshot.ts'
import { REPO_ROOT } from './lib.ts'

const NODE_INTERNALS = 'node (internals)'
const UNATTRIBUTED = -1

/** Owners whose data is one of the groups the report names; everything else is `objects: <owner>`. */
const NAMED_GROUPS: Record<string, string> = {
  ajv: 'ajv: validators, schema envs, instances',
  'ajv-formats': 'ajv: validators, schema envs, instances',
  '@fastify/ajv-compiler': 'ajv: validators, schema envs, instances',
  'ajv (generated)': 'ajv: validators, schema envs, instances',
  'fast-json-stringify': 'fast-json-stringify: serializers',
  '@fastify/fast-json-stringify-compiler': 'fast-json-stringify: serializers',
  'fast-json-stringify (generated)': 'fast-json-stringify: serializers',
  'find-my-way': 'find-my-way: route tables',
  'find-my-way (generated)': 'find-my-way: route tables',
  fastify: 'fastify: instances, route contexts',
  avvio: 'fastify: instances, route contexts',
  'TypeBox schema': 'TypeBox schemas',
  typebox: 'TypeBox schemas',
  'OpenAPI document': 'OpenAPI documents (@fastify/swagger)',
  '@fastify/swagger': 'OpenAPI documents (@fastify/swagger)',
  'pg-boss': 'pg-boss',
  'drizzle-orm': 'drizzle-orm',
  'prom-client': 'prom-client registries and metrics',
  '@electric-sql/pglite': 'PGlite: JS objects',
  'PGlite files': 'PGlite: in-memory files (FSNode)',
  'PGlite cluster file': 'PGlite: cluster file it was loaded from (loadDataDir)',
  'WebAssembly memory: @electric-sql/pglite': 'PGlite: WebAssembly memory',
  'WebAssembly instance: @electric-sql/pglite': 'PGlite: WebAssembly instance (V8 data)',
}

/** Code that a library generated with `new Function`, told by the generated function's parameters. */
const GENERATED: [RegExp, string][] = [
  [/^\(function anonymous\(self,scope\b/, 'ajv (generated)'],
  [/^\(function anonymous\(validator,serializer\b/, 'fast-json-stringify (generated)'],
  [/^\(function anonymous\((path,i|derivedConstraints|NullObject)\b/, 'find-my-way (generated)'],
]

/** The owner a script's URL names: a package of node_modules, a folder of src/, Node itself, or none. */
export function ownerOfUrl(url: string): string | undefined {
  const dependency = /^node:internal\/deps\/([^/]+)/.exec(url)
  if (dependency) return `node: ${dependency[1]}`
  if (url.startsWith('node:')) return NODE_INTERNALS
  const path = url.startsWith('file://') ? decodeURIComponent(new URL(url).pathname) : url
  const inModules = path.lastIndexOf('/node_modules/')
  if (inModules >= 0) {
    const [first, second] = path.slice(inModules + '/node_modules/'.length).split('/')
    return first?.startsWith('@') ? `${first}/${second}` : first
  }
  if (path.startsWith(`${REPO_ROOT}/`)) {
    const parts = path.slice(REPO_ROOT.length + 1).split('/')
    return parts.length > 2 ? `${parts[0]}/${parts[1]}` : parts[0]
  }
  return path.startsWith('/') ? path : undefined
}

export interface GroupFigures {
  group: string
  /** Self sizes of its nodes inside the V8 heap. */
  heapBytes: number
  /** Self sizes of its nodes outside it: ArrayBuffer and Blob data, Node's native objects, external strings. */
  offHeapBytes: number
  nodes: number
}

export interface Dominator {
  name: string
  type: string
  /** The edge its dominator holds it by (`loadDataDir`, `context`, an element index…). */
  heldAs: string
  owner: string
  retainedBytes: number
}

export interface HeapGroups {
  groups: GroupFigures[]
  /** The biggest single holders, a holder listed once (not again for each link of a chain it dominates). */
  top: Dominator[]
  heapBytes: number
  offHeapBytes: number
  /** The owner a node was given (undefined: unattributed). */
  ownerOf(node: number): string | undefined
}

/** Owners of nodes, groups and the biggest dominators of a snapshot. */
export function heapGroups(snapshot: HeapSnapshot, tree: DominatorTree, topCount = 25): HeapGroups {
  const { nodeCount, nodeType, nodeName, nodeSelfSize, firstEdge, edgeType, edgeName, edgeTo, strings } =
    snapshot
  const { idom, order } = tree
  const type = (node: number) => snapshot.nodeTypes[nodeType[node]!]!
  const name = (node: number) => strings[nodeName[node]!]!
  const CODE = snapshot.nodeTypeIndex('code')
  const CLOSURE = snapshot.nodeTypeIndex('closure')
  const OBJECT = snapshot.nodeTypeIndex('object')
  const NATIVE = snapshot.nodeTypeIndex('native')
  const CONCATENATED = snapshot.nodeTypeIndex('concatenated string')
  const STRING_TYPES = new Set(['string', 'concatenated string', 'sliced string'].map(snapshot.nodeTypeIndex))
  const NAMED_EDGES = new Set(
    ['context', 'property', 'internal', 'shortcut', 'weak'].map(snapshot.edgeTypeIndex),
  )
  const edgeLabel = (edge: number) =>
    NAMED_EDGES.has(edgeType[edge]!) ? strings[edgeName[edge]!]! : String(edgeName[edge])
  const target = (node: number, label: string) => {
    for (let edge = firstEdge[node]!; edge < firstEdge[node + 1]!; edge++) {
      if (edgeLabel(edge) === label) return edgeTo[edge]!
    }
    return -1
  }

  const owners: string[] = []
  const ownerIds = new Map<string, number>()
  const ownerId = (owner: string | undefined) => {
    if (owner === undefined) return UNATTRIBUTED
    let id = ownerIds.get(owner)
    if (id === undefined) {
      id = owners.length
      owners.push(owner)
      ownerIds.set(owner, id)
    }
    return id
  }

  // Scripts: a code node with a `source`; its owner from its URL, or from the generated code's parameters.
  const scriptOwner = new Map<number, number>()
  const isScript = new Uint8Array(nodeCount)
  const isSource = new Uint8Array(nodeCount)
  const ownerOfScript = (script: number) => {
    let owner = scriptOwner.get(script)
    if (owner !== undefined) return owner
    const url = name(script)
    // A concatenated source is a tree of strings: its text begins with its first part's.
    let source = target(script, 'source')
    while (source >= 0 && nodeType[source] === CONCATENATED) source = target(source, 'first')
    const text = source >= 0 ? name(source) : ''
    const generated = GENERATED.find(([pattern]) => pattern.test(text))?.[1]
    owner = ownerId(url ? ownerOfUrl(url) : (generated ?? '(eval, new Function)'))
    scriptOwner.set(script, owner)
    return owner
  }
  const ownerOfFunction = (sharedInfo: number) => {
    const script = sharedInfo >= 0 ? target(sharedInfo, 'script') : -1
    return script >= 0 ? ownerOfScript(script) : UNATTRIBUTED
  }

  // What each node says of itself: `strong` wins over its dominator's owner, `weak` only stands in for none.
  const strong = new Int32Array(nodeCount).fill(UNATTRIBUTED)
  const weak = new Int32Array(nodeCount).fill(UNATTRIBUTED)
  const isNode = (owner: number) => owners[owner]!.startsWith('node')
  const claim = (node: number, owner: number) => {
    if (owner === UNATTRIBUTED) return
    if (isNode(owner)) weak[node] = owner
    else strong[node] = owner
  }
  for (let node = 0; node < nodeCount; node++) {
    if (nodeType[node] === CODE && target(node, 'source') >= 0 && target(node, 'name') >= 0) {
      isScript[node] = 1
      strong[node] = ownerOfScript(node)
      // Its source, even where Node also lists it among the strings kept in its binary.
      const source = target(node, 'source')
      strong[source] = strong[node]!
      isSource[source] = 1
    }
  }
  const contextOwner = new Map<number, number>()
  for (let node = 0; node < nodeCount; node++) {
    if (nodeType[node] === CODE && !isScript[node]) {
      const script = target(node, 'script')
      // A SharedFunctionInfo: code, even Node's own.
      if (script >= 0 && isScript[script]) strong[node] = ownerOfScript(script)
    } else if (nodeType[node] === CLOSURE) {
      const owner = ownerOfFunction(target(node, 'shared'))
      claim(node, owner)
      const context = target(node, 'context')
      if (context >= 0 && owner !== UNATTRIBUTED && !contextOwner.has(context))
        contextOwner.set(context, owner)
    }
  }
  for (const [context, owner] of contextOwner) claim(context, owner)

  // Objects: by their constructor's script (instances, through __proto__; prototypes, by their own).
  const prototypeOwner = new Map<number, number>()
  const ownerOfConstructor = (holder: number) => {
    const maker = target(holder, 'constructor')
    return maker >= 0 && nodeType[maker] === CLOSURE ? ownerOfFunction(target(maker, 'shared')) : UNATTRIBUTED
  }
  const typeBoxSchema = ownerId('TypeBox schema')
  const openApiDocument = ownerId('OpenAPI document')
  const pglite = ownerId('@electric-sql/pglite')
  const pgliteFiles = ownerId('PGlite files')
  const memories = new Set<number>()
  for (let node = 0; node < nodeCount; node++) {
    if (nodeType[node] !== OBJECT || name(node).startsWith('system / ')) continue
    if (target(node, '~kind') >= 0) {
      strong[node] = typeBoxSchema
      continue
    }
    if (target(node, 'openapi') >= 0 && target(node, 'paths') >= 0) {
      strong[node] = openApiDocument
      continue
    }
    const prototype = target(node, '__proto__')
    if (prototype >= 0 && name(prototype) === 'WebAssembly.Memory') memories.add(node)
    let owner = ownerOfConstructor(node)
    if (owner === UNATTRIBUTED && prototype >= 0) {
      owner = prototypeOwner.get(prototype) ?? ownerOfConstructor(prototype)
      prototypeOwner.set(prototype, owner)
    }
    if (owner === pglite && name(node) === 'FSNode') owner = pgliteFiles
    if (owner !== UNATTRIBUTED) {
      claim(node, owner)
      continue
    }
    // A plain object of functions (a module's exports, a set of callbacks): whoever wrote the first one.
    for (let edge = firstEdge[node]!; edge < firstEdge[node + 1]!; edge++) {
      const value = edgeTo[edge]!
      if (nodeType[value] !== CLOSURE) continue
      const writer = strong[value]! !== UNATTRIBUTED ? strong[value]! : weak[value]!
      if (writer !== UNATTRIBUTED) {
        weak[node] = writer
        break
      }
    }
  }

  // PGlite keeps the options it was created with, the cluster file (`loadDataDir`) among them, for its whole life.
  const pgliteCluster = ownerId('PGlite cluster file')
  for (let node = 0; node < nodeCount; node++) {
    if (nodeType[node] !== OBJECT) continue
    const cluster = target(node, 'loadDataDir')
    if (cluster >= 0 && nodeType[cluster] === OBJECT) strong[cluster] = pgliteCluster
  }
  // Owners down the dominator tree: a dominator comes before what it dominates in `order`.
  const owner = new Int32Array(nodeCount).fill(UNATTRIBUTED)
  const passOwners = () => {
    for (let at = 1; at < order.length; at++) {
      const node = order[at]!
      const inherited = owner[idom[node]!]!
      const own = strong[node]!
      owner[node] = own !== UNATTRIBUTED ? own : inherited !== UNATTRIBUTED ? inherited : weak[node]!
    }
  }
  passOwners()

  // A buffer that several views share (PGlite's files cut from one buffer, the typed arrays over a
  // WebAssembly memory), a WebAssembly memory and a WeakMap's value (an esbuild-compiled private field)
  // have the root as dominator: they go to the owner most of their holders have, Node's last.
  const INTERNAL = snapshot.edgeTypeIndex('internal')
  const votes = new Map<number, Map<number, number>>()
  for (let from = 0; from < nodeCount; from++) {
    const by = owner[from]!
    if (by === UNATTRIBUTED) continue
    for (let edge = firstEdge[from]!; edge < firstEdge[from + 1]!; edge++) {
      const to = edgeTo[edge]!
      if (owner[to] !== UNATTRIBUTED) continue
      const held =
        name(to) === 'ArrayBuffer' ||
        memories.has(to) ||
        (edgeType[edge] === INTERNAL && edgeLabel(edge).includes(' / part of key ('))
      if (!held) continue
      const counts = votes.get(to) ?? new Map<number, number>()
      counts.set(by, (counts.get(by) ?? 0) + 1)
      votes.set(to, counts)
    }
  }
  const holder = new Map<number, number>()
  for (const [node, counts] of votes) {
    const ranked = [...counts].sort(
      ([ownerA, countA], [ownerB, countB]) =>
        Number(isNode(ownerA)) - Number(isNode(ownerB)) || countB - countA,
    )
    holder.set(node, ranked[0]![0])
  }
  for (const [node, by] of holder) strong[node] = by
  passOwners()
  // A WebAssembly memory, its buffer and its instance's data are a group of their own, by owner.
  for (const memory of memories) {
    if (owner[memory] === UNATTRIBUTED) continue
    const id = ownerId(`WebAssembly memory: ${owners[owner[memory]!]}`)
    strong[memory] = id
    for (let edge = firstEdge[memory]!; edge < firstEdge[memory + 1]!; edge++) {
      if (name(edgeTo[edge]!) === 'ArrayBuffer') strong[edgeTo[edge]!] = id
    }
  }
  for (let node = 0; node < nodeCount; node++) {
    if (owner[node] !== UNATTRIBUTED || name(node) !== 'system / WasmTrustedInstanceData') continue
    const list = target(node, 'memory_objects')
    const memory = list >= 0 && firstEdge[list + 1]! > firstEdge[list]! ? edgeTo[firstEdge[list]!]! : -1
    if (memory >= 0 && owner[memory] !== UNATTRIBUTED) {
      strong[node] = ownerId(`WebAssembly instance: ${owners[owner[memory]!]}`)
    }
  }
  passOwners()

  // Off-heap: native nodes (ArrayBuffer data, Node's objects) and the strings Node keeps in its binary.
  const offHeap = new Uint8Array(nodeCount)
  for (let node = 0; node < nodeCount; node++) if (nodeType[node] === NATIVE) offHeap[node] = 1
  for (let node = 0; node < nodeCount; node++) {
    if (nodeType[node] !== snapshot.nodeTypeIndex('synthetic') || name(node) !== '(External strings)')
      continue
    for (let edge = firstEdge[node]!; edge < firstEdge[node + 1]!; edge++) offHeap[edgeTo[edge]!] = 1
  }

  const groupOf = (node: number) => {
    const id = owner[node]!
    const isCode =
      nodeType[node] === CODE ||
      isSource[node] === 1 ||
      (STRING_TYPES.has(nodeType[node]!) && isScript[idom[node]!] === 1)
    if (id === UNATTRIBUTED) {
      const what = name(node).startsWith('system / ') ? name(node) : type(node)
      return `unattributed: ${isCode ? 'code' : what}`
    }
    const ownerName = owners[id]!
    const generated = ownerName.endsWith(' (generated)')
    if (isCode && !generated) return `code: ${ownerName}`
    if (ownerName.startsWith('WebAssembly ')) return NAMED_GROUPS[ownerName] ?? ownerName
    return NAMED_GROUPS[ownerName] ?? `objects: ${ownerName}`
  }
  const byGroup = new Map<string, GroupFigures>()
  let heapBytes = 0
  let offHeapBytes = 0
  for (const node of order) {
    if (node === 0) continue
    const group = groupOf(node)
    let figures = byGroup.get(group)
    if (!figures) {
      figures = { group, heapBytes: 0, offHeapBytes: 0, nodes: 0 }
      byGroup.set(group, figures)
    }
    const size = nodeSelfSize[node]!
    if (offHeap[node]) {
      figures.offHeapBytes += size
      offHeapBytes += size
    } else {
      figures.heapBytes += size
      heapBytes += size
    }
    figures.nodes++
  }

  const groups = [...byGroup.values()].sort(
    (a, b) => b.heapBytes + b.offHeapBytes - (a.heapBytes + a.offHeapBytes),
  )
  const ownerOf = (node: number) => (owner[node] === UNATTRIBUTED ? undefined : owners[owner[node]!])
  const top = biggestDominators(snapshot, tree, ownerOf, topCount)
  return { groups, top, heapBytes, offHeapBytes, ownerOf }
}

/** The biggest holders; one that is most of a bigger one it hangs under is that one again, left out. */
function biggestDominators(
  snapshot: HeapSnapshot,
  tree: DominatorTree,
  ownerOf: (node: number) => string | undefined,
  count: number,
): Dominator[] {
  const { nodeType, nodeName, firstEdge, edgeType, edgeName, edgeTo, strings } = snapshot
  const { idom, order, retained } = tree
  const name = (node: number) => strings[nodeName[node]!]!
  const NAMED_EDGES = new Set(
    ['context', 'property', 'internal', 'shortcut', 'weak'].map(snapshot.edgeTypeIndex),
  )
  const SYNTHETIC = snapshot.nodeTypeIndex('synthetic')
  const candidates = [...order]
    .filter((node) => nodeType[node] !== SYNTHETIC)
    .sort((a, b) => retained[b]! - retained[a]!)
    .slice(0, count * 40)
  const chosen = new Set<number>()
  const top: Dominator[] = []
  for (const node of candidates) {
    if (top.length >= count) break
    let repeats = false
    for (let above = idom[node]!; above !== 0 && !repeats; above = idom[above]!) {
      repeats = chosen.has(above) && retained[node]! >= 0.9 * retained[above]!
    }
    if (repeats) continue
    chosen.add(node)
    const holder = idom[node]!
    let heldAs = nodeType[holder] === SYNTHETIC ? '(several holders)' : `(under ${name(holder).slice(0, 30)})`
    for (let edge = firstEdge[holder]!; edge < firstEdge[holder + 1]!; edge++) {
      if (edgeTo[edge] !== node) continue
      const label = NAMED_EDGES.has(edgeType[edge]!) ? strings[edgeName[edge]!]! : String(edgeName[edge])
      heldAs = `${snapshot.edgeTypes[edgeType[edge]!]}:${label}`
    }
    top.push({
      name: name(node).replace(/\s+/g, ' ').slice(0, 60),
      type: snapshot.nodeTypes[nodeType[node]!]!,
      heldAs: heldAs.slice(0, 40),
      owner: ownerOf(node) ?? '(unattributed)',
      retainedBytes: retained[node]!,
    })
  }
  return top
}
