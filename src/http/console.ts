/**
 * Serves a browser console built by Vite (`web/`, built into `dist/web/<name>/` by `npm install`) under a
 * path of its service: `/admin` on the directory, `/console` on the platform. The console is a
 * single-page app, so every path under the prefix that is not one of its files answers its page, and a
 * deep link or a reload lands where the user was. Its assets carry a content hash in their names and are
 * cached for a year; the page itself is revalidated on each load, so a new build is picked up at once.
 *
 * The files are read on the first request (start-up reads nothing) and kept in memory with their gzip
 * form: the whole build is a few hundred kilobytes.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { extname, join, relative, sep } from 'node:path'
import { gzipSync } from 'node:zlib'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { notFound } from '../lib/errors.ts'
import type { App } from './app.ts'

/** Where `npm install` (scripts/build-web.ts) puts the consoles. */
export const WEB_BUILD_DIR = join(import.meta.dirname, '..', '..', 'dist', 'web')

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.json': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
}

/**
 * The console page's policy: its own scripts and styles only, API calls to its own origin, images from
 * anywhere over HTTPS (items' icons and pictures are links to other sites) and data: URLs.
 */
const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: https:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ')

interface ConsoleFile {
  type: string
  body: Buffer
  gzip: Buffer | undefined
}

interface ConsoleBuild {
  index: ConsoleFile
  /** Files by their path under the prefix (`assets/index-3f2a1b.js`). */
  files: Map<string, ConsoleFile>
}

function fileOf(path: string): ConsoleFile {
  const body = readFileSync(path)
  const type = TYPES[extname(path)] ?? 'application/octet-stream'
  const compressible = /^(text\/|application\/json|image\/svg)/.test(type) && body.length > 1024
  return { type, body, gzip: compressible ? gzipSync(body, { level: 9 }) : undefined }
}

function readBuild(dir: string): ConsoleBuild | undefined {
  const indexPath = join(dir, 'index.html')
  if (!existsSync(indexPath)) return undefined
  const files = new Map<string, ConsoleFile>()
  const walk = (folder: string) => {
    for (const name of readdirSync(folder)) {
      // Vite's manifest (`.vite/`) is for tools, not for browsers.
      if (name.startsWith('.')) continue
      const path = join(folder, name)
      if (statSync(path).isDirectory()) walk(path)
      else files.set(relative(dir, path).split(sep).join('/'), fileOf(path))
    }
  }
  walk(dir)
  return { index: fileOf(indexPath), files }
}

function send(req: FastifyRequest, reply: FastifyReply, file: ConsoleFile, cacheControl: string) {
  reply.header('content-type', file.type)
  reply.header('cache-control', cacheControl)
  reply.header('vary', 'accept-encoding')
  const acceptsGzip = /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''))
  if (file.gzip && acceptsGzip) {
    reply.header('content-encoding', 'gzip')
    return reply.send(file.gzip)
  }
  return reply.send(file.body)
}

export interface ConsoleOptions {
  /** The path it is served under, e.g. `/admin`. */
  prefix: string
  /** Its build folder under `dist/web/`. */
  name: string
  /** What it is, for the page shown when it has not been built. */
  title: string
  /** The build folder (tests and benchmarks point it elsewhere); `dist/web/<name>` by default. */
  dir?: string
}

/** The routes of one console: its page at the prefix and every path under it, and its hashed assets. */
export function consoleRoutes(app: App, options: ConsoleOptions): void {
  const dir = options.dir ?? join(WEB_BUILD_DIR, options.name)
  let build: ConsoleBuild | undefined
  const loaded = () => {
    build ??= readBuild(dir)
    return build
  }

  const page = (req: FastifyRequest, reply: FastifyReply) => {
    const current = loaded()
    if (!current) {
      reply.header('content-security-policy', "default-src 'none'; frame-ancestors 'none'")
      return reply
        .code(503)
        .type('text/plain; charset=utf-8')
        .header('cache-control', 'no-store')
        .send(
          `${options.title} has not been built. Run \`npm install\` (or \`npm run build:web\`) in Curio's folder, then reload.\n`,
        )
    }
    reply.header('content-security-policy', CONSOLE_CSP)
    return send(req, reply, current.index, 'no-cache')
  }

  const routeOptions = { config: { access: 'public' as const }, schema: { hide: true } }
  app.get(options.prefix, routeOptions, page)
  app.get(`${options.prefix}/*`, routeOptions, (req, reply) => {
    const rest = (req.params as { '*': string })['*']
    if (rest.startsWith('assets/') || extname(rest) !== '') {
      const file = loaded()?.files.get(rest)
      if (!file) throw notFound(`No file ${options.prefix}/${rest.slice(0, 120)}`)
      // Vite names every asset by its content: a name is never reused for other bytes.
      const immutable = rest.startsWith('assets/')
      return send(req, reply, file, immutable ? 'public, max-age=31536000, immutable' : 'no-cache')
    }
    return page(req, reply)
  })
}
