import { eq } from 'drizzle-orm'
import type { Config } from '../../config.ts'
import type { Db } from '../../db/index.ts'
import {
  createGitHubClient,
  type GitHubClient,
  gitHostStatus,
  splitRepository,
} from '../../integrations/github/client.ts'
import { type ErrorCode, HttpError } from '../../lib/errors.ts'
import { checkedCategoryName } from './service.ts'
import { categories } from './tables.ts'

/** The categories file in the data repository: a JSON array of `{id, name}` at the repository root. */
export const CATEGORIES_FILE = 'categories.json'

export interface GitCategory {
  id: string
  name: string
}

export interface GitCategoryStatus {
  repository: string
  branch: string
  lastCommit: string | null
  lastCommitDate: string | null
  isUpToDate: boolean
}

export interface CategoryGitServiceDeps {
  db: Db
  config: Pick<Config, 'dataRepository' | 'gitToken' | 'githubApiUrl'>
  /** How a client is made; tests may swap it, the app uses octokit against `GITHUB_API_URL`. */
  createClient?: (options: { baseUrl: string; token: string }) => Promise<GitHubClient>
}

const notConfigured = () =>
  new HttpError(500, 'GIT_NOT_CONFIGURED', 'Data repository or Git token not configured')
const gitHostError = (message: string, code: ErrorCode = 'GIT_HOST_ERROR') =>
  new HttpError(502, code, message)

/** A Git host failure as an answer that names no token, URL or stack. */
function fromGitHost(error: unknown, what: string): unknown {
  if (error instanceof HttpError) return error
  const status = gitHostStatus(error)
  if (status === 401 || status === 403)
    return gitHostError('The Git host refused the token', 'GIT_AUTH_FAILED')
  if (status === 404)
    return gitHostError('The data repository was not found on the Git host', 'GIT_REPO_NOT_FOUND')
  if (status === undefined) return gitHostError(`The Git host could not be reached while ${what}`)
  return gitHostError(`The Git host answered ${status} while ${what}`)
}

function isEntry(value: unknown): value is GitCategory {
  if (typeof value !== 'object' || value === null) return false
  const entry = value as Record<string, unknown>
  return typeof entry.id === 'string' && typeof entry.name === 'string'
}

function parseFile(base64: string): GitCategory[] {
  let parsed: unknown
  try {
    parsed = JSON.parse(Buffer.from(base64, 'base64').toString('utf8'))
  } catch {
    parsed = undefined
  }
  if (!Array.isArray(parsed) || !parsed.every(isEntry)) {
    throw gitHostError(
      `${CATEGORIES_FILE} in the data repository is not a JSON array of {id, name}`,
      'GIT_FILE_INVALID',
    )
  }
  return parsed.map(({ id, name }) => ({ id, name }))
}

const keyOf = (category: GitCategory) => `${category.id}\u0000${category.name}`

function sameSet(a: GitCategory[], b: GitCategory[]): boolean {
  const left = new Set(a.map(keyOf))
  const right = new Set(b.map(keyOf))
  return left.size === right.size && [...left].every((key) => right.has(key))
}

/** Reads and commits the directory's categories in its Git data repository (`DATA_REPOSITORY`). */
export function createCategoryGitService({
  db,
  config,
  createClient = createGitHubClient,
}: CategoryGitServiceDeps) {
  async function connect() {
    const { dataRepository, gitToken } = config
    if (!dataRepository || !gitToken) throw notConfigured()
    return {
      repository: dataRepository,
      client: await createClient({ baseUrl: config.githubApiUrl, token: gitToken }),
      ...splitRepository(dataRepository),
    }
  }

  type Connection = Awaited<ReturnType<typeof connect>>

  async function defaultBranch({ client, owner, repo }: Connection): Promise<string> {
    try {
      const { data } = await client.rest.repos.get({ owner, repo })
      return data.default_branch
    } catch (error) {
      throw fromGitHost(error, 'reading the repository')
    }
  }

  /** The file's entries and blob sha, or `null` when the branch has no such file. */
  async function readFile(
    { client, owner, repo }: Connection,
    branch: string,
  ): Promise<{ entries: GitCategory[]; sha: string } | null> {
    try {
      const { data } = await client.rest.repos.getContent({ owner, repo, path: CATEGORIES_FILE, ref: branch })
      if (Array.isArray(data) || data.type !== 'file' || !('content' in data)) {
        throw gitHostError(`${CATEGORIES_FILE} in the data repository is not a file`, 'GIT_FILE_INVALID')
      }
      return { entries: parseFile(data.content), sha: data.sha }
    } catch (error) {
      // The repository was found a moment ago, so a 404 here is the file (or an empty repository).
      if (gitHostStatus(error) === 404) return null
      throw fromGitHost(error, `reading ${CATEGORIES_FILE}`)
    }
  }

  /** The newest commit touching the file, else the branch head; none in an empty repository. */
  async function lastCommit({ client, owner, repo }: Connection, branch: string) {
    try {
      for (const path of [CATEGORIES_FILE, undefined]) {
        const { data } = await client.rest.repos.listCommits({
          owner,
          repo,
          sha: branch,
          per_page: 1,
          ...(path ? { path } : {}),
        })
        const [commit] = data
        if (commit) {
          return {
            sha: commit.sha,
            date: commit.commit.committer?.date ?? commit.commit.author?.date ?? null,
          }
        }
      }
      return { sha: null, date: null }
    } catch (error) {
      // GitHub answers 409 for the commits of an empty repository and 404 for a missing branch.
      const status = gitHostStatus(error)
      if (status === 409 || status === 404) return { sha: null, date: null }
      throw fromGitHost(error, 'reading the commits')
    }
  }

  async function storedCategories(): Promise<GitCategory[]> {
    return db
      .select({ id: categories.id, name: categories.name })
      .from(categories)
      .where(eq(categories.isActive, true))
  }

  return {
    async status(): Promise<{ status: GitCategoryStatus; categories: GitCategory[]; message: string }> {
      const connection = await connect()
      const branch = await defaultBranch(connection)
      const [file, commit, stored] = await Promise.all([
        readFile(connection, branch),
        lastCommit(connection, branch),
        storedCategories(),
      ])
      const entries = file?.entries ?? []
      const isUpToDate = sameSet(stored, entries)
      return {
        status: {
          repository: connection.repository,
          branch,
          lastCommit: commit.sha,
          lastCommitDate: commit.date,
          isUpToDate,
        },
        categories: entries,
        message: !file
          ? `${CATEGORIES_FILE} does not exist in the data repository yet`
          : isUpToDate
            ? 'The stored categories match the data repository'
            : 'The stored categories differ from the data repository',
      }
    },

    /** Adds or renames `{id, name}` in the file and commits it; one retry when the file moved meanwhile. */
    async commit(body: GitCategory): Promise<{ category: GitCategory; message: string }> {
      const category = { id: body.id, name: checkedCategoryName(body.name) }
      const connection = await connect()
      const branch = await defaultBranch(connection)

      for (let attempt = 1; ; attempt++) {
        const file = await readFile(connection, branch)
        const entries = file?.entries ?? []
        const index = entries.findIndex((entry) => entry.id === category.id)
        const existing = index >= 0 ? entries[index] : undefined
        if (existing?.name === category.name) {
          return { category, message: 'The category is already in the data repository' }
        }
        const next = existing
          ? entries.map((entry, i) => (i === index ? category : entry))
          : [...entries, category]
        try {
          await connection.client.rest.repos.createOrUpdateFileContents({
            owner: connection.owner,
            repo: connection.repo,
            path: CATEGORIES_FILE,
            branch,
            message: `${existing ? 'Update' : 'Add'} category ${category.name}`,
            content: Buffer.from(`${JSON.stringify(next, null, 2)}\n`, 'utf8').toString('base64'),
            ...(file ? { sha: file.sha } : {}),
          })
          return {
            category,
            message: existing
              ? 'Category updated in the data repository'
              : 'Category added to the data repository',
          }
        } catch (error) {
          // 409: the file changed since it was read (a stale sha); 422 without a sha: it appeared
          // meanwhile. Either way, read it again once.
          const status = gitHostStatus(error)
          const moved = status === 409 || (status === 422 && !file)
          if (moved && attempt === 1) continue
          if (moved) {
            throw new HttpError(
              409,
              'GIT_FILE_CHANGED',
              `${CATEGORIES_FILE} kept changing in the data repository; try again`,
            )
          }
          throw fromGitHost(error, `committing ${CATEGORIES_FILE}`)
        }
      }
    },
  }
}

export type CategoryGitService = ReturnType<typeof createCategoryGitService>
