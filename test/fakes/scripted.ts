import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/**
 * The machinery the fakes share: scripted faults (`fail(match, behaviour, times)`), requests held open until
 * `release()`, the request log, and the server's start and close. `startScriptedFake` wires it all; the
 * pieces serve a fake that needs less. Each fake keeps its own answers, error shapes and content types.
 */

/** Which requests a scripted behaviour applies to: the method (any case) and the path without the query. */
export interface RequestMatch {
  method?: string
  /** Exact path without the query, or a RegExp. */
  path?: string | RegExp
}

/** An answer instead of the real one; a string body is sent as is (text), anything else as JSON. */
export interface ScriptedFault {
  status: number
  /** Default: the fake's own body for that status. */
  body?: unknown
  headers?: Record<string, string>
}

/** Holds the request open until `release()` (or `close()`), then answers it for real. */
export type Hang = { hang: true }

export type Behaviour<Fault extends ScriptedFault = ScriptedFault> = Fault | Hang

/** What a fake sends: a status and a body, with headers of its own. */
export type Answer = { status: number; body: unknown; headers?: Record<string, string> }

/** A request as a fake's log keeps it; each fake adds what it reads of it. */
export interface ScriptedRequest {
  method: string
  /** Without the query. */
  path: string
  query: Record<string, string>
  /** What it was answered; null while held (or when the client left first). */
  status: number | null
  /** Whether the client closed the connection before it was answered (it gave up waiting). */
  abandoned: boolean
}

/** Whether a request (method, path without the query) is one `match` names; what it leaves out, any does. */
export function matches(match: RequestMatch, method: string, path: string): boolean {
  return (
    (!match.method || match.method.toUpperCase() === method) &&
    (match.path === undefined ||
      (typeof match.path === 'string' ? match.path === path : match.path.test(path)))
  )
}

/**
 * A fake's script: behaviours queued by `fail` for the next matching requests (the first queued that still
 * matches is used), and the requests held open. `faultBody` words a fault given without a body.
 */
export function createScript<B extends Behaviour, Match extends RequestMatch = RequestMatch>(
  faultBody: (status: number) => unknown,
) {
  const entries: { match: Match; behaviour: B; remaining: number }[] = []
  const held = new Map<ServerResponse, () => void>()

  return {
    /** The next `times` requests matching `match` answer `behaviour` (a status, or held open). */
    fail(match: Match, behaviour: B, times = 1) {
      entries.push({ match, behaviour, remaining: times })
    },
    /** The behaviour scripted for this request, used up; undefined when none is. */
    take(method: string, path: string): B | undefined {
      const entry = entries.find(
        (candidate) => candidate.remaining > 0 && matches(candidate.match, method, path),
      )
      if (!entry) return undefined
      entry.remaining--
      return entry.behaviour
    },
    /** Drops every behaviour still scripted. */
    clear() {
      entries.length = 0
    },
    /** The answer a fault stands for: its body, or the fake's for that status; its headers, if any. */
    faultAnswer(fault: Exclude<B, Hang>): Answer {
      return {
        status: fault.status,
        body: fault.body === undefined ? faultBody(fault.status) : fault.body,
        ...(fault.headers ? { headers: fault.headers } : {}),
      }
    },
    /** Holds a request open; `answer` is called on release, even when its client has given up. */
    hold(res: ServerResponse, answer: () => void) {
      held.set(res, answer)
    },
    /** How many requests are held (their clients may have given up on them). */
    get held(): number {
      return held.size
    },
    /** Held requests get their real answers. */
    release() {
      const answers = [...held.values()]
      held.clear()
      for (const answer of answers) answer()
    },
  }
}

export interface ScriptedFakeOptions<B extends Behaviour, Logged extends ScriptedRequest> {
  /** The body of a fault given without one, as the provider (or the proxy in front of it) words that status. */
  faultBody: (status: number) => unknown
  /** What the log keeps of a request besides its method, path, query and status; `text` is its body. */
  log: (req: IncomingMessage, text: string) => Omit<Logged, keyof ScriptedRequest>
  /** The real answer to a request. */
  respond: (req: IncomingMessage, request: Logged, url: URL) => Answer
  /** A string body is sent as is, typed `types.text`; anything else as JSON, typed `types.json`. */
  types: { text: string; json: string }
  /** Headers of the fake's own for an answer; the answer's own go over them. */
  headers?: (answer: Answer) => Record<string, string>
  /** While this gives a behaviour, every request gets it instead of the script's (an outage). */
  override?: () => B | undefined
}

/**
 * Starts a fake's server on 127.0.0.1: every request is read, logged in `requests`, then answered as scripted
 * (held open, or a fault) or else for real by `options.respond`. Answers the server's `url`, the log, the
 * `script`, and the `controls` a test uses: `fail`, `held`, `release` and `close`.
 */
export async function startScriptedFake<
  B extends Behaviour,
  Match extends RequestMatch,
  Logged extends ScriptedRequest,
>(options: ScriptedFakeOptions<B, Logged>) {
  const script = createScript<B, Match>(options.faultBody)
  const requests: Logged[] = []

  function send(res: ServerResponse, logged: Logged, answer: Answer) {
    if (sendAnswer(res, answer, options.types, options.headers?.(answer))) logged.status = answer.status
  }

  const { server, url } = await listen(async (req, res) => {
    const text = await readBody(req)
    const address = new URL(req.url ?? '/', 'http://fake')
    const logged = {
      method: req.method ?? 'GET',
      path: address.pathname,
      query: Object.fromEntries(address.searchParams),
      ...options.log(req, text),
      status: null,
      abandoned: false,
    } as Logged
    requests.push(logged)
    res.on('close', () => {
      if (!res.writableFinished) logged.abandoned = true
    })
    const behaviour = options.override?.() ?? script.take(logged.method, logged.path)
    const answer = () => send(res, logged, options.respond(req, logged, address))
    if (behaviour && 'hang' in behaviour) return script.hold(res, answer)
    if (behaviour) return send(res, logged, script.faultAnswer(behaviour as Exclude<B, Hang>))
    answer()
  })

  /** A fake returns these with its own members added by `Object.assign(controls, {…})` (a spread loses `held`). */
  const controls = {
    /** The next `times` requests matching `match` answer `behaviour` (a status, or held open). */
    fail: script.fail,
    /** How many requests are held (their clients may have given up on them). */
    get held(): number {
      return script.held
    },
    /** Held requests get their real answers. */
    release: script.release,
    /** Releases the held requests, then closes the server and every connection to it. */
    close(): Promise<void> {
      script.release()
      return closeServer(server)
    },
  }
  return { url, requests, script, controls }
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

/** A body parsed as JSON; the raw text when it is not JSON, undefined when empty. */
export function parseBody(text: string): unknown {
  try {
    return text ? JSON.parse(text) : undefined
  } catch {
    return text
  }
}

/**
 * Sends `answer` unless the response is gone or already answered (a held request whose client gave up):
 * a string body as is, typed `types.text`; anything else as JSON, typed `types.json`. `headers` come between
 * the content type and the answer's own. Says whether it was sent.
 */
export function sendAnswer(
  res: ServerResponse,
  answer: Answer,
  types: { text: string; json: string },
  headers: Record<string, string> = {},
): boolean {
  if (res.destroyed || res.headersSent) return false
  const raw = typeof answer.body === 'string'
  res
    .writeHead(answer.status, {
      'content-type': raw ? types.text : types.json,
      ...headers,
      ...answer.headers,
    })
    .end(raw ? (answer.body as string) : JSON.stringify(answer.body))
  return true
}

/** Starts `handler` on 127.0.0.1 at a free port; answers the server and its address (`http://127.0.0.1:<port>`). */
export async function listen(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<{ server: Server; url: string }> {
  const server = createServer(handler)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return { server, url: `http://127.0.0.1:${port}` }
}

/** Closes the server and every connection to it, held or idle. */
export function closeServer(server: Server): Promise<void> {
  return new Promise<void>((resolve) => {
    server.close(() => resolve())
    server.closeAllConnections()
  })
}
