import { DrizzleQueryError } from 'drizzle-orm/errors'
import pino, { type Logger } from 'pino'
import { prettyFactory } from 'pino-pretty'
import { type LogDestination, streamDestination } from './log-destination.ts'

/** Never written to a log line, wherever they appear in a logged object. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'res.headers["set-cookie"]',
  'headers.authorization',
  'headers.cookie',
  'headers["x-api-key"]',
  '*.password',
  '*.newPassword',
  '*.currentPassword',
  '*.token',
  '*.accessToken',
  '*.refreshToken',
  '*.apiKey',
  '*.secret',
  '*.signingSecret',
  '*.secretSettings',
]

/** Causes followed below a logged error; bounds circular and runaway chains. */
const MAX_CAUSE_DEPTH = 8

/** Parts of a Postgres error report that name things or places; detail, where, hint and params can quote values. */
const DATABASE_ERROR_FIELDS = [
  'query',
  'code',
  'severity',
  'constraint',
  'table',
  'column',
  'schema',
  'dataType',
  'routine',
  'position',
] as const

const SQLSTATE = /^[0-9A-Z]{5}$/
const QUOTED = /"[^"]*"/g
const HEX_BYTES = /0x[0-9a-f]{2}(?: 0x[0-9a-f]{2})*/gi
const REDACTED = '"[redacted]"'

type ErrorLike = { message: string; stack?: unknown; cause?: unknown; [key: string]: unknown }

function isErrorLike(value: unknown): value is ErrorLike {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { message?: unknown }).message === 'string'
  )
}

/** A Postgres error report from node-postgres or PGlite. */
function isDriverError(error: ErrorLike): boolean {
  return typeof error.code === 'string' && SQLSTATE.test(error.code) && typeof error.severity === 'string'
}

/** Postgres writes the values it quotes in double quotes; names it also reports as fields are kept. */
function redactDriverMessage(error: ErrorLike, code: string): string {
  const { message } = error
  if (!code.startsWith('22')) {
    const names = new Set(['constraint', 'table', 'column', 'schema'].map((field) => error[field]))
    return message.replace(QUOTED, (quoted) => (names.has(quoted.slice(1, -1)) ? quoted : REDACTED))
  }
  // A data exception quotes the rejected value, which may itself hold quotes (or show as raw bytes).
  const first = message.indexOf('"')
  const last = message.lastIndexOf('"')
  const redacted =
    first === -1
      ? message
      : `${message.slice(0, first)}${REDACTED}${last > first ? message.slice(last + 1) : ''}`
  return redacted.replace(HEX_BYTES, '0x[redacted]')
}

/** The stack's first line repeats the message it was taken with, values included. */
function redactStack(error: ErrorLike, message: string): string | undefined {
  if (typeof error.stack !== 'string') return undefined
  const at = error.stack.indexOf(error.message)
  if (at !== -1 && !error.stack.slice(0, at).includes('\n')) {
    return error.stack.slice(0, at) + message + error.stack.slice(at + error.message.length)
  }
  // The message changed after the stack was taken: keep only the frames.
  const frames = error.stack.split('\n').filter((line) => /^\s+at /.test(line))
  return [message, ...frames].join('\n')
}

function serializeDatabaseError(error: ErrorLike, depth: number): Record<string, unknown> {
  const isQueryError = error instanceof DrizzleQueryError
  const message = isQueryError
    ? `Failed query: ${error.query}`
    : redactDriverMessage(error, error.code as string)
  // Both drivers call their class DatabaseError; PGlite's bundle minifies the name.
  const serialized: Record<string, unknown> = {
    type: isQueryError ? 'DrizzleQueryError' : 'DatabaseError',
    message,
    stack: redactStack(error, message),
  }
  for (const field of DATABASE_ERROR_FIELDS) {
    if (typeof error[field] === 'string') serialized[field] = error[field]
  }
  if (isErrorLike(error.cause)) serialized.cause = serializeNested(error.cause, depth)
  return serialized
}

function serializeOtherError(error: ErrorLike, depth: number): Record<string, unknown> {
  const serialized: Record<string, unknown> = pino.stdSerializers.err(error as unknown as Error)
  // The standard serializer folds every cause's message and stack into these, past any redaction.
  serialized.message = error.message
  serialized.stack = error.stack
  for (const key in error) {
    if (key !== 'cause' && isErrorLike(error[key])) serialized[key] = serializeNested(error[key], depth)
  }
  if (Array.isArray(error.errors)) {
    delete serialized.errors
    serialized.aggregateErrors = error.errors.map((item: unknown) =>
      isErrorLike(item) ? serializeNested(item, depth) : item,
    )
  }
  if (isErrorLike(error.cause)) serialized.cause = serializeNested(error.cause, depth)
  return serialized
}

/** A cause or other nested error, by the same rules; left out past the depth bound. */
function serializeNested(error: ErrorLike, depth: number): Record<string, unknown> | undefined {
  return depth < MAX_CAUSE_DEPTH ? serializeAt(error, depth + 1) : undefined
}

function serializeAt(error: ErrorLike, depth: number): Record<string, unknown> {
  return error instanceof DrizzleQueryError || isDriverError(error)
    ? serializeDatabaseError(error, depth)
    : serializeOtherError(error, depth)
}

/**
 * pino's `err` serializer: database errors (Drizzle's and the drivers') keep their SQL, SQLSTATE and the names
 * of what failed but no parameter or quoted value; other errors serialize as pino's do. Causes follow the same rule.
 */
export function serializeError(value: unknown): unknown {
  return isErrorLike(value) ? serializeAt(value, 0) : value
}

/** One JSON object per line, or readable lines for a person at a terminal. */
export type LogFormat = 'json' | 'pretty'

let stdout: LogDestination | undefined

/** The process's stdout as a log destination that never blocks (see streamDestination). */
function stdoutDestination(): LogDestination {
  stdout ??= streamDestination(process.stdout)
  return stdout
}

/** Waits up to `timeoutMs` for stdout to take the log lines it still holds (before the process exits). */
export async function flushLogs(timeoutMs: number): Promise<void> {
  await stdout?.flush(timeoutMs)
}

/**
 * A logger writing to stdout (or `destination`), secrets redacted. `format` defaults to readable lines
 * (pino-pretty's formatting, in this process) when it writes to a terminal, and JSON lines otherwise;
 * redaction and the error serializer apply before either. Stdout is never waited on: lines it cannot
 * take are dropped and counted.
 */
export function createLogger(
  level: string,
  destination?: pino.DestinationStream,
  format: LogFormat = destination === undefined && process.stdout.isTTY ? 'pretty' : 'json',
): Logger {
  const options = {
    level,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    serializers: { err: serializeError },
  }
  const target = destination ?? stdoutDestination()
  if (format === 'json') return pino(options, target)
  const pretty = prettyFactory({
    colorize: destination === undefined && process.stdout.isTTY === true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname',
  })
  return pino(options, { write: (line: string) => target.write(pretty(line)) })
}
