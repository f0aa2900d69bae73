import type pg from 'pg'
import { shellWord } from '../lib/values.ts'
import { databaseUnavailable } from './errors.ts'

/** The Postgres server named by a setting could not serve Curio at start: one line saying why, no stack. */
export class DatabaseStartError extends Error {
  override name = 'DatabaseStartError'
}

/** SQLSTATE of a database that does not exist (`database "x" does not exist`). */
const PG_INVALID_CATALOG_NAME = '3D000'
/** SQLSTATEs of a refused login: a wrong password, an unknown role, a pg_hba.conf rule. */
const PG_LOGIN_REFUSED = new Set(['28P01', '28000'])

/** Where a URL points, without its password: host, port, user and database, with Postgres' defaults. */
function targetOf(url: string) {
  const parsed = new URL(url)
  const user = decodeURIComponent(parsed.username) || 'postgres'
  return {
    host: parsed.hostname.replace(/^\[|\]$/g, '') || 'localhost',
    port: parsed.port || '5432',
    user,
    database: decodeURIComponent(parsed.pathname.slice(1)) || user,
  }
}

/**
 * Opens one connection of `pool` and gives it back, so that a server that cannot serve Curio stops start-up
 * with one line naming `setting` and the cause: a database that does not exist (with the command that
 * creates it; Curio creates its schemas and tables, never the database), a refused login, a server that
 * cannot be reached. Any other failure is thrown as it is. The message never holds the URL's password.
 */
export async function checkDatabaseServer(pool: pg.Pool, url: string, setting: string): Promise<void> {
  let client: pg.PoolClient
  try {
    client = await pool.connect()
  } catch (error) {
    throw startError(error, url, setting) ?? error
  }
  client.release()
}

function startError(error: unknown, url: string, setting: string): DatabaseStartError | undefined {
  const { host, port, user, database } = targetOf(url)
  const where = `${host.includes(':') ? `[${host}]` : host}:${port}`
  const code = (error as { code?: unknown })?.code
  const said = error instanceof Error ? error.message : String(error)
  if (code === PG_INVALID_CATALOG_NAME) {
    const create = `createdb -h ${shellWord(host)} -p ${port} -U ${shellWord(user)} ${shellWord(database)}`
    const quoted = `"${database.replaceAll('"', '""')}"`
    return new DatabaseStartError(
      `Database ${quoted} does not exist on ${where} (${setting}). Curio creates its tables but not the ` +
        `database: create it with \`${create}\` (or in psql: \`create database ${quoted};\`), then run ` +
        'this command again',
    )
  }
  if (typeof code === 'string' && PG_LOGIN_REFUSED.has(code)) {
    return new DatabaseStartError(`Postgres at ${where} refused the login of ${setting}: ${said}`)
  }
  const unreachable = databaseUnavailable(error)
  if (unreachable) {
    return new DatabaseStartError(
      `Postgres at ${where} (${setting}) could not be reached: ${unreachable}` +
        `${said && !said.startsWith(unreachable) ? ` (${said})` : ''}. Is the server running, and is the address right?`,
    )
  }
  return undefined
}
