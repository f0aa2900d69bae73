import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/**
 * The machinery the fakes share: scripted faults (`fail(match, behaviour, times)`), requests held open until
 * `release()`, and the server's start and close. Each fake keeps its own error shapes and content types.
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

/** Whether a request (method, path without the query) is one `match` names; what it leaves out, any does. */
export function matches(match: RequestMatch, method: string, path: string): boolean {
  return (
    (!match.method || match.method.toUpperCase() === method) &&
    (match.path === undefined || (typeof match.path === 'string' ? match.path === path : match.path.test(path)))
  )
}

/**
 * A fake's script: behaviours queued by `fail` for the next matching requests, first queued first used, and
 * the requests held open by a `{hang: true}`. `faultBody` words a fault given without a body.
 */
export function createScript<B extends ScriptedFault | Hang, Match extends RequestMatch = RequestMatch>(
  faultBody: (status: number) => unknown,
) {
  const entries: { match: Match; behaviour: B; remaining: number }[] = []
  const held = new Map<ServerResponse, () => void>()

  function release() {
    const answers = [...held.values()]
    held.clear()
    for (const answer of answers) answer()
  }

  /** The answer a fault stands for: its body, or the fake's for that status; its headers, if any. */
  function faultAnswer(fault: Exclude<B, Hang>): Answer {
    return {
      status: fault.status,
      body: fault.body === undefined ? faultBody(fault.status) : fault.body,
      ...(fault.headers ? { headers: fault.headers } : {}),
    }
  }

  return {
    /** The next `times` requests matching `match` answer `behaviour` (a status, or held open). */
    fail(match: Match, behaviour: B, times = 1) {
      entries.push({ match, behaviour, remaining: times })
    },
    /** The behaviour scripted for this request, used up; undefined when none is. */
    take(method: string, path: string): B | undefined {
      const entry = entries.find((candidate) => candidate.remaining > 0 && matches(candidate.match, method, path))
      if (!entry) return undefined
      entry.remaining--
      return entry.behaviour
    },
    /** Drops every behaviour still scripted. */
    clear() {
      entries.length = 0
    },
    faultAnswer,
    /**
     * Answers a request as `behaviour` says: held open (`respond` is called on release, even when the client
     * has given up, as a slow server would still do the work), its fault, or with none, `respond()`.
     */
    answer(res: ServerResponse, behaviour: B | undefined, respond: () => Answer, send: (answer: Answer) => void) {
      if (behaviour && 'hang' in behaviour) {
        held.set(res, () => send(respond()))
        return
      }
      if (behaviour) return send(faultAnswer(behaviour as Exclude<B, Hang>))
      send(respond())
    },
    /** How many requests are held (their clients may have given up on them). */
    get held(): number {
      return held.size
    },
    /** Held requests get their real answers. */
    release,
    /** Releases the held requests, then closes the server and every connection to it. */
    close(server: Server): Promise<void> {
      release()
      return closeServer(server)
    },
  }
}

/** A request's body as text. */
export async function readBody(req: IncomingMessage): Promise<string> {
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
    .writeHead(answer.status, { 'content-type': raw ? types.text : types.json, ...headers, ...answer.headers })
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
