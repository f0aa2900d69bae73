import { createHash, randomBytes } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface FakeCommit {
  sha: string
  message: string
  date: string
  /** Paths the commit changed. */
  paths: string[]
}

interface FakeFile {
  content: Buffer
  sha: string
}

interface FakeRepo {
  defaultBranch: string
  files: Map<string, FakeFile>
  /** Newest first, like the commits API. */
  commits: FakeCommit[]
}

/** Git's blob sha, as GitHub reports it for a file's content. */
const blobSha = (content: Buffer) =>
  createHash('sha1')
    .update(Buffer.concat([Buffer.from(`blob ${content.length}\0`), content]))
    .digest('hex')

/**
 * A stand-in for the GitHub REST API on 127.0.0.1, for the paths and shapes the data repository uses:
 * `GET /repos/{owner}/{repo}`, `GET /repos/{owner}/{repo}/commits` (`sha`, `path`, `per_page`),
 * `GET` and `PUT /repos/{owner}/{repo}/contents/{path}` (base64 content and blob sha; a `PUT` over an
 * existing file needs its current sha: 409 when stale, 422 when missing). Every request needs
 * `authorization: token <token>` (or `Bearer`): 401 otherwise. Unknown repositories answer 404.
 */
export async function startGitHubFake({ token }: { token: string }) {
  const repos = new Map<string, FakeRepo>()
  /** Runs once before the next `PUT` is handled: lets a test change the file in between. */
  let beforeNextPut: (() => void) | undefined
  let clock = Date.parse('2026-01-01T00:00:00Z')
  const puts: { status: number; sha: string | undefined }[] = []
  const authorizations: (string | undefined)[] = []

  function commit(repo: FakeRepo, message: string, path: string, content: Buffer) {
    const file = { content, sha: blobSha(content) }
    repo.files.set(path, file)
    clock += 60_000
    const entry = {
      sha: randomBytes(20).toString('hex'),
      message,
      date: new Date(clock).toISOString().replace('.000Z', 'Z'),
      paths: [path],
    }
    repo.commits.unshift(entry)
    return { file, commit: entry }
  }

  const send = (res: ServerResponse, status: number, body: unknown) =>
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(body))
  const fail = (res: ServerResponse, status: number, message: string) =>
    send(res, status, { message, documentation_url: 'https://docs.github.com/rest', status: String(status) })

  const readBody = async (req: IncomingMessage) => {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    return Buffer.concat(chunks).toString('utf8')
  }

  const contentOf = (path: string, file: FakeFile) => ({
    type: 'file',
    encoding: 'base64',
    size: file.content.length,
    name: path.split('/').pop(),
    path,
    sha: file.sha,
    // GitHub wraps the base64 at 60 characters.
    content: `${file.content
      .toString('base64')
      .match(/.{1,60}/g)
      ?.join('\n')}\n`,
  })

  const server = createServer(async (req, res) => {
    const body = await readBody(req)
    const url = new URL(req.url ?? '/', 'http://fake')
    authorizations.push(req.headers.authorization)
    if (req.headers.authorization !== `token ${token}` && req.headers.authorization !== `Bearer ${token}`) {
      return fail(res, 401, 'Bad credentials')
    }
    const match = /^\/repos\/([^/]+)\/([^/]+)(?:\/(commits|contents)(?:\/(.+))?)?$/.exec(url.pathname)
    if (!match) return fail(res, 404, 'Not Found')
    const [, owner, name, kind, rawPath] = match
    const repo = repos.get(`${owner}/${name}`)
    if (!repo) return fail(res, 404, 'Not Found')
    const path = rawPath ? decodeURIComponent(rawPath) : undefined

    if (req.method === 'GET' && !kind) {
      return send(res, 200, {
        id: 1,
        name,
        full_name: `${owner}/${name}`,
        private: true,
        default_branch: repo.defaultBranch,
      })
    }

    if (req.method === 'GET' && kind === 'commits' && !path) {
      const branch = url.searchParams.get('sha') ?? repo.defaultBranch
      if (branch !== repo.defaultBranch) return fail(res, 404, 'Not Found')
      if (repo.commits.length === 0) return fail(res, 409, 'Git Repository is empty.')
      const only = url.searchParams.get('path')
      const perPage = Number(url.searchParams.get('per_page') ?? 30)
      const found = repo.commits.filter((entry) => !only || entry.paths.includes(only)).slice(0, perPage)
      return send(
        res,
        200,
        found.map((entry) => ({
          sha: entry.sha,
          commit: {
            message: entry.message,
            author: { name: 'Curio', email: 'curio@example.com', date: entry.date },
            committer: { name: 'GitHub', email: 'noreply@github.com', date: entry.date },
          },
        })),
      )
    }

    if (kind === 'contents' && path) {
      const ref = url.searchParams.get('ref')
      if (req.method === 'GET') {
        if (ref && ref !== repo.defaultBranch) return fail(res, 404, 'No commit found for the ref')
        const file = repo.files.get(path)
        return file ? send(res, 200, contentOf(path, file)) : fail(res, 404, 'Not Found')
      }
      if (req.method === 'PUT') {
        const hook = beforeNextPut
        beforeNextPut = undefined
        hook?.()
        const input = JSON.parse(body || '{}') as {
          message?: string
          content?: string
          sha?: string
          branch?: string
        }
        const answer = (status: number) => puts.push({ status, sha: input.sha })
        if (typeof input.message !== 'string' || typeof input.content !== 'string') {
          answer(422)
          return fail(res, 422, 'Invalid request.')
        }
        if (input.branch && input.branch !== repo.defaultBranch) {
          answer(404)
          return fail(res, 404, 'Branch not found')
        }
        const current = repo.files.get(path)
        if (current && !input.sha) {
          answer(422)
          return fail(res, 422, 'Invalid request.\n\n"sha" wasn\'t supplied.')
        }
        if (current && input.sha !== current.sha) {
          answer(409)
          return fail(res, 409, `${path} does not match ${input.sha}`)
        }
        const created = commit(repo, input.message, path, Buffer.from(input.content, 'base64'))
        answer(current ? 200 : 201)
        return send(res, current ? 200 : 201, {
          content: { ...contentOf(path, created.file), content: undefined },
          commit: { sha: created.commit.sha, message: created.commit.message },
        })
      }
    }
    return fail(res, 404, 'Not Found')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo

  return {
    url: `http://127.0.0.1:${port}`,
    /** Every PUT's answer status and the sha it sent, in order. */
    puts,
    /** The authorization header of every request. */
    authorizations,
    addRepo(fullName: string, defaultBranch = 'main') {
      repos.set(fullName, { defaultBranch, files: new Map(), commits: [] })
    },
    /** Commits `text` to `path` on the default branch, as someone else would. */
    writeFile(fullName: string, path: string, text: string, message = `Write ${path}`) {
      const repo = repos.get(fullName)
      if (!repo) throw new Error(`github fake: no repository ${fullName}`)
      return commit(repo, message, path, Buffer.from(text, 'utf8')).commit
    },
    readFile(fullName: string, path: string): string | undefined {
      return repos.get(fullName)?.files.get(path)?.content.toString('utf8')
    },
    commits(fullName: string): FakeCommit[] {
      return repos.get(fullName)?.commits ?? []
    },
    beforeNextPut(hook: () => void) {
      beforeNextPut = hook
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

export type GitHubFake = Awaited<ReturnType<typeof startGitHubFake>>
