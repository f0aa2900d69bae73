/**
 * A V8 heap snapshot (`.heapsnapshot`) read into typed arrays, and its dominator tree with each node's
 * retained size, for bench:heap.
 *
 * The file is JSON, but its `nodes`, `edges` and `locations` arrays hold millions of whole numbers: they are
 * read straight from the bytes into typed arrays, and only the header and `strings` go through JSON.parse.
 * The dominator tree is Cooper, Harvey and Kennedy's iterative algorithm ("A Simple, Fast Dominance
 * Algorithm") over a depth-first reverse postorder from node 0, the snapshot's root. Like Chrome's DevTools,
 * it ignores weak edges, and shortcut edges except the root's.
 */
import { readFileSync } from 'node:fs'

interface Meta {
  node_fields: string[]
  node_types: [string[], ...string[]]
  edge_fields: string[]
  edge_types: [string[], ...string[]]
  location_fields?: string[]
}

export interface HeapSnapshot {
  nodeCount: number
  edgeCount: number
  nodeTypes: string[]
  edgeTypes: string[]
  /** Per node: index into nodeTypes, index into strings, self size in bytes, first edge (edge ordinal). */
  nodeType: Uint8Array
  nodeName: Uint32Array
  nodeSelfSize: Float64Array
  /** Node n's edges are firstEdge[n] … firstEdge[n + 1] - 1 (length nodeCount + 1). */
  firstEdge: Uint32Array
  /** Per edge: index into edgeTypes, name (index into strings) or element index, target node ordinal. */
  edgeType: Uint8Array
  edgeName: Uint32Array
  edgeTo: Uint32Array
  /** Per closure with a known position: node ordinal → V8 script id (from `locations`). */
  scriptIdOf: Map<number, number>
  strings: string[]
  /** Index of a type name in nodeTypes / edgeTypes (-1 when the snapshot has no such type). */
  nodeTypeIndex(name: string): number
  edgeTypeIndex(name: string): number
}

const COMMA = 44
const CLOSE = 93
const ZERO = 48
const NINE = 57

/**
 * Reads the whole numbers of a JSON array that starts right after `from` (just past its `[`) into `out`;
 * answers the offset just past the closing `]`.
 */
function readNumbers(bytes: Buffer, from: number, out: { set(index: number, value: number): void }): number {
  let index = 0
  let value = 0
  let inNumber = false
  for (let at = from; at < bytes.length; at++) {
    const byte = bytes[at]!
    if (byte >= ZERO && byte <= NINE) {
      value = value * 10 + (byte - ZERO)
      inNumber = true
    } else if (byte === COMMA || byte === CLOSE) {
      if (inNumber) out.set(index++, value)
      value = 0
      inNumber = false
      if (byte === CLOSE) return at + 1
    }
  }
  throw new Error('heap snapshot: an array does not end')
}

/** Offset just past `"key":[` at or after `from`. */
function arrayStart(bytes: Buffer, key: string, from: number): number {
  const marker = `"${key}":[`
  const at = bytes.indexOf(marker, from, 'latin1')
  if (at < 0) throw new Error(`heap snapshot: no "${key}" array`)
  return at + marker.length
}

/** Reads a `.heapsnapshot` file. Throws when it is incomplete or not one. */
export function readHeapSnapshot(path: string): HeapSnapshot {
  const bytes = readFileSync(path)
  const nodesAt = arrayStart(bytes, 'nodes', 0)
  const headerText = bytes
    .toString('utf8', 0, nodesAt - '"nodes":['.length)
    .trim()
    .replace(/,$/, '')
  const header = JSON.parse(`${headerText}}`) as {
    snapshot: { meta: Meta; node_count: number; edge_count: number }
  }
  const { meta, node_count: nodeCount, edge_count: edgeCount } = header.snapshot
  const nodeFields = meta.node_fields.length
  const edgeFields = meta.edge_fields.length
  const field = (fields: string[], name: string) => {
    const at = fields.indexOf(name)
    if (at < 0) throw new Error(`heap snapshot: no ${name} field`)
    return at
  }
  const typeField = field(meta.node_fields, 'type')
  const nameField = field(meta.node_fields, 'name')
  const sizeField = field(meta.node_fields, 'self_size')
  const edgeCountField = field(meta.node_fields, 'edge_count')
  const edgeTypeField = field(meta.edge_fields, 'type')
  const edgeNameField = field(meta.edge_fields, 'name_or_index')
  const edgeToField = field(meta.edge_fields, 'to_node')

  const nodeType = new Uint8Array(nodeCount)
  const nodeName = new Uint32Array(nodeCount)
  const nodeSelfSize = new Float64Array(nodeCount)
  const firstEdge = new Uint32Array(nodeCount + 1)
  let nodesRead = 0
  const afterNodes = readNumbers(bytes, nodesAt, {
    set(index, value) {
      const node = Math.floor(index / nodeFields)
      const column = index - node * nodeFields
      if (column === typeField) nodeType[node] = value
      else if (column === nameField) nodeName[node] = value
      else if (column === sizeField) nodeSelfSize[node] = value
      else if (column === edgeCountField) firstEdge[node + 1] = value
      nodesRead = index + 1
    },
  })
  if (nodesRead !== nodeCount * nodeFields) {
    throw new Error(`heap snapshot: ${nodesRead} node fields for ${nodeCount} nodes`)
  }
  for (let node = 0; node < nodeCount; node++) firstEdge[node + 1]! += firstEdge[node]!
  if (firstEdge[nodeCount] !== edgeCount) throw new Error('heap snapshot: edge counts do not add up')

  const edgeType = new Uint8Array(edgeCount)
  const edgeName = new Uint32Array(edgeCount)
  const edgeTo = new Uint32Array(edgeCount)
  let edgesRead = 0
  const afterEdges = readNumbers(bytes, arrayStart(bytes, 'edges', afterNodes), {
    set(index, value) {
      const edge = Math.floor(index / edgeFields)
      const column = index - edge * edgeFields
      if (column === edgeTypeField) edgeType[edge] = value
      else if (column === edgeNameField) edgeName[edge] = value
      else if (column === edgeToField) edgeTo[edge] = value / nodeFields
      edgesRead = index + 1
    },
  })
  if (edgesRead !== edgeCount * edgeFields) {
    throw new Error(`heap snapshot: ${edgesRead} edge fields for ${edgeCount} edges`)
  }

  // locations: [object_index, script_id, line, column] per closure whose position V8 knows.
  const scriptIdOf = new Map<number, number>()
  const locationFields = meta.location_fields ?? ['object_index', 'script_id', 'line', 'column']
  const objectField = locationFields.indexOf('object_index')
  const scriptField = locationFields.indexOf('script_id')
  let locationNode = 0
  const afterLocations = readNumbers(bytes, arrayStart(bytes, 'locations', afterEdges), {
    set(index, value) {
      const column = index % locationFields.length
      if (column === objectField) locationNode = value / nodeFields
      else if (column === scriptField) scriptIdOf.set(locationNode, value)
    },
  })

  const stringsAt = arrayStart(bytes, 'strings', afterLocations) - 1
  const end = bytes.lastIndexOf(CLOSE) + 1
  const strings = JSON.parse(bytes.toString('utf8', stringsAt, end)) as string[]

  const nodeTypes = meta.node_types[0]
  const edgeTypes = meta.edge_types[0]
  return {
    nodeCount,
    edgeCount,
    nodeTypes,
    edgeTypes,
    nodeType,
    nodeName,
    nodeSelfSize,
    firstEdge,
    edgeType,
    edgeName,
    edgeTo,
    scriptIdOf,
    strings,
    nodeTypeIndex: (name) => nodeTypes.indexOf(name),
    edgeTypeIndex: (name) => edgeTypes.indexOf(name),
  }
}

export interface DominatorTree {
  /** Immediate dominator of each node (the root's is itself; an unreachable node's is UNREACHABLE). */
  idom: Uint32Array
  /** Self size plus that of everything the node dominates; 0 for unreachable nodes. */
  retained: Float64Array
  /** Reachable nodes in reverse postorder (root first): a dominator comes before what it dominates. */
  order: Uint32Array
  reachableCount: number
  /** Sum of the self sizes of the nodes reachable from the root (through edges that count). */
  reachableSize: number
}

export const UNREACHABLE = 0xffffffff

/** Whether an edge keeps its target alive, as DevTools counts it (weak edges never; shortcuts from the root only). */
function essential(snapshot: HeapSnapshot) {
  const weak = snapshot.edgeTypeIndex('weak')
  const shortcut = snapshot.edgeTypeIndex('shortcut')
  return (from: number, edge: number) => {
    const type = snapshot.edgeType[edge]
    return type !== weak && (type !== shortcut || from === 0)
  }
}

/** The dominator tree of the snapshot's graph from node 0, and retained sizes. */
export function dominatorTree(snapshot: HeapSnapshot): DominatorTree {
  const { nodeCount, firstEdge, edgeTo, nodeSelfSize } = snapshot
  const keeps = essential(snapshot)

  // Iterative depth-first search from the root: postorder number of each reachable node.
  const postorder = new Uint32Array(nodeCount).fill(UNREACHABLE)
  const nodeAt = new Uint32Array(nodeCount)
  const visited = new Uint8Array(nodeCount)
  const stackNode = new Uint32Array(nodeCount)
  const stackEdge = new Uint32Array(nodeCount)
  let depth = 0
  let count = 0
  stackNode[0] = 0
  stackEdge[0] = firstEdge[0]!
  visited[0] = 1
  depth = 1
  while (depth > 0) {
    const node = stackNode[depth - 1]!
    const edge = stackEdge[depth - 1]!
    if (edge < firstEdge[node + 1]!) {
      stackEdge[depth - 1] = edge + 1
      const to = edgeTo[edge]!
      if (!visited[to] && keeps(node, edge)) {
        visited[to] = 1
        stackNode[depth] = to
        stackEdge[depth] = firstEdge[to]!
        depth++
      }
    } else {
      postorder[node] = count
      nodeAt[count] = node
      count++
      depth--
    }
  }

  // Predecessors through counted edges, among reachable nodes, as compressed rows.
  const firstPred = new Uint32Array(nodeCount + 1)
  for (let from = 0; from < nodeCount; from++) {
    if (!visited[from]) continue
    for (let edge = firstEdge[from]!; edge < firstEdge[from + 1]!; edge++) {
      if (keeps(from, edge)) firstPred[edgeTo[edge]! + 1]!++
    }
  }
  for (let node = 0; node < nodeCount; node++) firstPred[node + 1]! += firstPred[node]!
  const preds = new Uint32Array(firstPred[nodeCount]!)
  const filled = firstPred.slice(0, nodeCount)
  for (let from = 0; from < nodeCount; from++) {
    if (!visited[from]) continue
    for (let edge = firstEdge[from]!; edge < firstEdge[from + 1]!; edge++) {
      if (keeps(from, edge)) preds[filled[edgeTo[edge]!]!++] = from
    }
  }

  // Cooper–Harvey–Kennedy, on postorder numbers: the root has the highest.
  const root = count - 1
  const doms = new Uint32Array(count).fill(UNREACHABLE)
  doms[root] = root
  const intersect = (a: number, b: number) => {
    while (a !== b) {
      while (a < b) a = doms[a]!
      while (b < a) b = doms[b]!
    }
    return a
  }
  let changed = true
  while (changed) {
    changed = false
    for (let number = root - 1; number >= 0; number--) {
      const node = nodeAt[number]!
      let idom = UNREACHABLE
      for (let at = firstPred[node]!; at < firstPred[node + 1]!; at++) {
        const pred = postorder[preds[at]!]!
        if (doms[pred] === UNREACHABLE) continue
        idom = idom === UNREACHABLE ? pred : intersect(pred, idom)
      }
      if (doms[number] !== idom) {
        doms[number] = idom
        changed = true
      }
    }
  }

  const idom = new Uint32Array(nodeCount).fill(UNREACHABLE)
  const retained = new Float64Array(nodeCount)
  const order = new Uint32Array(count)
  let reachableSize = 0
  for (let number = 0; number < count; number++) {
    const node = nodeAt[number]!
    idom[node] = nodeAt[doms[number]!]!
    order[root - number] = node
    retained[node]! += nodeSelfSize[node]!
    reachableSize += nodeSelfSize[node]!
    // Everything a node dominates has a lower postorder number: its retained size is complete here.
    if (number !== root) retained[idom[node]!]! += retained[node]!
  }
  return { idom, retained, order, reachableCount: count, reachableSize }
}

/**
 * Sanity check of a tree (throws when it fails): the root retains exactly the reachable nodes' self sizes,
 * every node's dominator precedes it in `order`, and a node's retained size is at least its own.
 */
export function checkDominatorTree(snapshot: HeapSnapshot, tree: DominatorTree): void {
  const { retained, reachableSize, idom, order } = tree
  if (Math.abs(retained[0]! - reachableSize) > 0.5) {
    throw new Error(`retained(root) ${retained[0]} != reachable self sizes ${reachableSize}`)
  }
  const position = new Uint32Array(snapshot.nodeCount).fill(UNREACHABLE)
  for (let at = 0; at < order.length; at++) position[order[at]!] = at
  for (let at = 1; at < order.length; at++) {
    const node = order[at]!
    if (position[idom[node]!]! >= at) throw new Error(`node ${node}'s dominator comes after it`)
    if (retained[node]! < snapshot.nodeSelfSize[node]!)
      throw new Error(`node ${node} retains less than itself`)
  }
}
