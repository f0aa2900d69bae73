/**
 * The baseline of bench/http.ts: a bare node:http server answering fixed bytes.
 *
 *   node bench/bare-server.ts <port> <routes.json>
 *
 * routes.json maps a path to { status, headers, bodyBase64 }; GET of that path answers exactly those
 * headers and bytes (node adds date, connection, keep-alive and content-length itself). Anything else
 * is a 404.
 */
import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'

export interface BareRoute {
  status: number
  headers: Record<string, string | string[]>
  bodyBase64: string
}

const [portArg, routesFile] = process.argv.slice(2)
const port = Number(portArg)
if (!Number.isInteger(port) || port < 0 || port > 65535 || !routesFile) {
  process.stderr.write('usage: node bench/bare-server.ts <port> <routes.json>\n')
  process.exit(2)
}

const routes = new Map(
  Object.entries(JSON.parse(readFileSync(routesFile, 'utf8')) as Record<string, BareRoute>).map(
    ([path, route]) => [path, { ...route, body: Buffer.from(route.bodyBase64, 'base64') }],
  ),
)

const server = createServer((req, res) => {
  const route = req.method === 'GET' ? routes.get(req.url ?? '') : undefined
  if (!route) {
    res.writeHead(404).end()
    return
  }
  // setHeader (not writeHead) so that end(body) still sets content-length rather than chunking.
  res.statusCode = route.status
  for (const [name, value] of Object.entries(route.headers)) res.setHeader(name, value)
  res.end(route.body)
})

server.listen(port, '127.0.0.1', () => {
  process.stdout.write(`bare server listening on 127.0.0.1:${port}\n`)
})

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    server.close(() => process.exit(0))
    server.closeAllConnections()
  })
}
