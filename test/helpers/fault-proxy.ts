import { once } from 'node:events'
import { createConnection, createServer, type Server, type Socket } from 'node:net'

/**
 * A TCP proxy of the tests' own, between the app and a server (Postgres, Redis), that fails the link the
 * ways a network and a server do:
 * - `refuse()`: the server is down: every open connection is reset and new ones are refused (ECONNREFUSED);
 * - `reset()`: every open connection is reset at once (mid-statement, mid-transaction); new ones pass;
 * - `blackhole()`: packets are held, nothing is refused or answered, on open and new connections alike;
 * - `restore()`: the link works again; connections held by a blackhole are reset, as a link that comes
 *   back after its peers gave up on each other does.
 */
export interface FaultProxy {
  /** `url` with its host and port replaced by the proxy's. */
  readonly url: string
  readonly port: number
  readonly mode: 'pass' | 'refuse' | 'blackhole'
  /** Connections made through the proxy so far. */
  readonly connections: number
  refuse(): Promise<void>
  reset(): void
  blackhole(): void
  restore(): Promise<void>
  close(): Promise<void>
}

interface Link {
  client: Socket
  upstream: Socket
}

const cut = (socket: Socket) => {
  if (!socket.destroyed) socket.resetAndDestroy()
}

/** A proxy on 127.0.0.1 (a free port) to the host and port of `targetUrl`. */
export async function startFaultProxy(targetUrl: string): Promise<FaultProxy> {
  const target = new URL(targetUrl)
  const targetPort = Number(target.port || (target.protocol.startsWith('redis') ? 6379 : 5432))
  const targetHost = target.hostname.replace(/^\[|\]$/g, '')
  const links = new Set<Link>()
  let mode: FaultProxy['mode'] = 'pass'
  let connections = 0

  const onConnection = (client: Socket) => {
    client.on('error', () => {})
    // Accepted just before the listener closed: a refusing server resets it.
    if (mode === 'refuse') return cut(client)
    connections++
    const upstream = createConnection({ host: targetHost, port: targetPort })
    upstream.on('error', () => cut(client))
    client.on('error', () => cut(upstream))
    const link = { client, upstream }
    links.add(link)
    const forget = () => links.delete(link)
    client.on('close', () => {
      forget()
      cut(upstream)
    })
    upstream.on('close', () => {
      forget()
      if (!client.destroyed) client.destroy()
    })
    if (mode === 'blackhole') client.pause()
    else join(link)
  }

  const join = ({ client, upstream }: Link) => {
    client.pipe(upstream)
    upstream.pipe(client)
    client.resume()
  }

  const hold = ({ client, upstream }: Link) => {
    client.unpipe(upstream)
    upstream.unpipe(client)
    client.pause()
    upstream.pause()
  }

  let server: Server = createServer(onConnection)
  const port = await listenBelowEphemeralPorts(server)

  const resetAll = () => {
    for (const { client, upstream } of [...links]) {
      cut(client)
      cut(upstream)
    }
    links.clear()
  }

  const url = new URL(targetUrl)
  url.hostname = '127.0.0.1'
  url.port = String(port)

  return {
    url: url.toString(),
    port,
    get mode() {
      return mode
    },
    get connections() {
      return connections
    },
    async refuse() {
      mode = 'refuse'
      const closed = new Promise<void>((resolve) => server.close(() => resolve()))
      resetAll()
      await closed
    },
    reset: resetAll,
    blackhole() {
      mode = 'blackhole'
      for (const link of links) hold(link)
    },
    async restore() {
      if (mode === 'blackhole') resetAll()
      if (mode === 'refuse') {
        server = createServer(onConnection)
        server.listen(port, '127.0.0.1')
        await once(server, 'listening')
      }
      mode = 'pass'
    },
    async close() {
      resetAll()
      if (server.listening) await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

/**
 * Listens on a free port below the system's ephemeral range (32768 and up on Linux), retrying on a taken
 * one. While the proxy refuses, its port has no listener; a port the system can hand to any `listen(0)`
 * could meanwhile go to another test file's proxy in front of the same Postgres server, and the app's
 * "refused" connection would then reach the database through it (a 201 during the outage).
 */
async function listenBelowEphemeralPorts(server: Server): Promise<number> {
  for (let attempt = 0; ; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000)
    const failure = await new Promise<NodeJS.ErrnoException | undefined>((resolve) => {
      const onError = (error: NodeJS.ErrnoException) => {
        server.off('listening', onListening)
        resolve(error)
      }
      const onListening = () => {
        server.off('error', onError)
        resolve(undefined)
      }
      server.once('error', onError)
      server.once('listening', onListening)
      server.listen(port, '127.0.0.1')
    })
    if (!failure) return port
    if (failure.code !== 'EADDRINUSE' || attempt >= 50) throw failure
  }
}
