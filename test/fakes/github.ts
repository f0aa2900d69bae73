import { createHash, randomBytes, randomInt } from 'node:crypto'
import { createServer, type IncomingMessage, STATUS_CODES } from 'node:http'
import type { AddressInfo } from 'node:net'
import sodium from 'libsodium-wrappers'

export interface FakeCommit {
  sha: string
  message: string
  date: string
  /** Paths the commit changed. */
  paths: string[]
}

/** What the fake answers: a status, a JSON body (none for 204) and extra headers. */
export interface FakeAnswer {
  status: number
  body?: unknown
  headers?: Record<string, string>
}

/** A `workflow_dispatch` the fake accepted, as `onDispatch` listeners and `dispatches()` see it. */
export interface FakeDispatch {
  /** `owner/name` of the repository. */
  repo: string
  /** The workflow's file name, e.g. `deploy_vercel.yaml`. */
  workflow: string
  ref: string
  inputs: Record<string, unknown>
}

/** A commit to a default branch, as a `push` trigger sees it. */
export interface FakePush {
  repo: string
  /** `refs/heads/<branch>`. */
  ref: string
  sha: string
  paths: string[]
  /** True for the first commit of a repository generated from a template (the push event's `created`). */
  created: boolean
}

export interface FakeWorkflow {
  id: number
  name: string
  path: string
  state: 'active' | 'disabled_manually'
}

interface FakeFile {
  content: Buffer
  sha: string
}

interface FakeAccount {
  login: string
  id: number
  type: 'User' | 'Organization'
  name: string
  /** An organization's members, lower case. */
  members: Set<string>
}

interface FakeValue {
  name: string
  value: string
  created_at: string
  updated_at: string
}

interface WorkflowRecord {
  id: number
  path: string
  state: FakeWorkflow['state']
  created_at: string
  updated_at: string
}

interface FakeRepo {
  id: number
  owner: string
  name: string
  description: string | null
  public: boolean
  isTemplate: boolean
  template?: FakeRepo
  /** Logins (lower case) with write access besides the owner and the owning organization's members. */
  collaborators: Set<string>
  defaultBranch: string
  createdAt: string
  files: Map<string, FakeFile>
  /** Newest first, like the commits API. */
  commits: FakeCommit[]
  /** The Curve25519 key pair Actions secrets are sealed to, one per repository like GitHub's. */
  keys: { keyId: string; publicKey: Uint8Array; privateKey: Uint8Array }
  /** By upper-case name: GitHub stores secret and variable names upper case. */
  secrets: Map<string, FakeValue>
  variables: Map<string, FakeValue>
  /** By path, made when a commit first writes a file under `.github/workflows/`. */
  workflows: Map<string, WorkflowRecord>
  dispatches: (Omit<FakeDispatch, 'repo'> & { at: string })[]
}

interface Caller {
  login: string
  scopes: string[]
}

/** A request the fake handles, once authenticated. */
interface Incoming {
  method: string
  url: URL
  body: string
  caller: Caller
}

const DOCS = 'https://docs.github.com/rest'
const WORKFLOW_FILE = /^\.github\/workflows\/[^/]+\.ya?ml$/
/** Secret and variable names GitHub accepts (and none starting with `GITHUB_`). */
const ACTIONS_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})$/

/** Git's blob sha, as GitHub reports it for a file's content. */
const blobSha = (content: Buffer) =>
  createHash('sha1')
    .update(Buffer.concat([Buffer.from(`blob ${content.length}\0`), content]))
    .digest('hex')

const lower = (text: string) => text.toLowerCase()

const fail = (status: number, message: string, extra: Record<string, unknown> = {}): FakeAnswer => ({
  status,
  body: { message, documentation_url: DOCS, status: String(status), ...extra },
})
const notFound = () => fail(404, 'Not Found')

/** The message GitHub gives with an injected status, rate limits included (octokit's throttling reads it). */
function faultMessage(status: number, headers: Record<string, string>, userId = 1000) {
  const header = (name: string) => Object.entries(headers).find(([key]) => lower(key) === name)?.[1]
  if ((status === 403 || status === 429) && header('x-ratelimit-remaining') === '0') {
    return `API rate limit exceeded for user ID ${userId}.`
  }
  if (status === 429 || (status === 403 && header('retry-after') !== undefined)) {
    return 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.'
  }
  return status === 401 ? 'Bad credentials' : (STATUS_CODES[status] ?? 'Error')
}

/** A workflow's top-level `name:`, as GitHub shows it; the path when it has none. */
function workflowName(text: string, path: string) {
  const name = /^name:[ \t]*(.+?)[ \t]*(?:#.*)?$/m.exec(text)?.[1]?.replace(/^(['"])(.*)\1$/, '$2')
  return name || path
}

/** The keys directly under the YAML key on line `at` (block style only), with their line numbers. */
function childKeys(lines: string[], at: number) {
  const indent = (line: string) => line.length - line.trimStart().length
  const base = indent(lines[at] ?? '')
  const found: { key: string; at: number }[] = []
  let depth: number | undefined
  for (let i = at + 1; i < lines.length; i++) {
    const line = lines[i] ?? ''
    if (!line.trim() || line.trimStart().startsWith('#')) continue
    if (indent(line) <= base) break
    depth ??= indent(line)
    const key = indent(line) === depth ? /^\s*(["']?)([^\s:#"']+)\1:/.exec(line)?.[2] : undefined
    if (key) found.push({ key, at: i })
  }
  return found
}

/** The `workflow_dispatch` inputs a workflow declares (`on.workflow_dispatch.inputs`), and which are required. */
function dispatchInputs(text: string) {
  const lines = text.split(/\r?\n/)
  const trigger = lines.findIndex((line) => /^\s*workflow_dispatch:\s*(#.*)?$/.test(line))
  const inputs = new Map<string, { required: boolean }>()
  const block = trigger < 0 ? undefined : childKeys(lines, trigger).find((child) => child.key === 'inputs')
  for (const input of block ? childKeys(lines, block.at) : []) {
    const settings = childKeys(lines, input.at)
    const has = (key: string, value = /:/) =>
      settings.some((setting) => setting.key === key && value.test(lines[setting.at] ?? ''))
    inputs.set(input.key, { required: has('required', /:\s*true\b/) && !has('default') })
  }
  return inputs
}

/**
 * A stand-in for the GitHub REST API on 127.0.0.1, for the paths and shapes the data repository and the
 * deploy pipeline use, with GitHub's status codes and messages:
 *
 * - `GET /user` (with the token's `x-oauth-scopes` header on every answer), `GET /orgs/{org}`;
 * - `GET /repos/{owner}/{repo}`, `POST /repos/{template_owner}/{template_repo}/generate`;
 * - `GET /repos/{owner}/{repo}/commits` (`sha`, `path`, `per_page`), `GET` and `PUT .../contents/{path}`
 *   (base64 content and blob sha; a `PUT` over an existing file needs its current sha: 409 when stale,
 *   422 when missing);
 * - Actions secrets (`.../actions/secrets/public-key`, `GET`/`PUT .../actions/secrets/{name}`, sealed boxes
 *   opened with the repository's key pair), variables (`POST .../actions/variables`, `GET`/`PATCH
 *   .../actions/variables/{name}`) and workflows (list, get, `enable`, `disable`, `dispatches`).
 *
 * Every request needs `authorization: token <token>` (or `Bearer`) with a known token: 401 otherwise. A
 * token reaches a repository it owns, one of an organization its user belongs to, one it collaborates on
 * or a public one (read only); any other answers 404, as GitHub hides private repositories. The `token`
 * given here belongs to `login` (`curio-bot`), a collaborator on every repository `addRepo` adds.
 */
export async function startGitHubFake({
  token,
  login: primaryLogin = 'curio-bot',
  scopes: primaryScopes = ['repo', 'workflow'],
}: {
  token: string
  login?: string
  scopes?: string[]
}) {
  await sodium.ready
  const accounts = new Map<string, FakeAccount>()
  const tokens = new Map<string, Caller>()
  const repos = new Map<string, FakeRepo>()
  const faults: { method?: string; path: RegExp | string; answer: FakeAnswer; times: number }[] = []
  const dispatchListeners = new Set<(dispatch: FakeDispatch) => unknown>()
  const pushListeners = new Set<(push: FakePush) => unknown>()
  /** Runs once before the next contents `PUT` is handled: lets a test change the file in between. */
  let beforeNextPut: (() => void) | undefined
  let clock = Date.parse('2026-01-01T00:00:00Z')
  let nextId = 1000
  let baseUrl = ''
  const puts: { status: number; sha: string | undefined }[] = []
  const authorizations: (string | undefined)[] = []
  const requests: { method: string; path: string; status: number }[] = []

  /** Advances the fake's clock and gives GitHub's timestamp format. */
  const stamp = (step = 1_000) => {
    clock += step
    return new Date(clock).toISOString().replace('.000Z', 'Z')
  }

  function account(login: string, type: FakeAccount['type'] = 'User') {
    let found = accounts.get(lower(login))
    if (!found) {
      found = { login, id: nextId++, type, name: login, members: new Set() }
      accounts.set(lower(login), found)
    }
    return found
  }

  const fullName = (repo: FakeRepo) => `${repo.owner}/${repo.name}`
  const findRepo = (name: string) => repos.get(lower(name))
  const repoOrThrow = (name: string) => {
    const repo = findRepo(name)
    if (!repo) throw new Error(`github fake: no repository ${name}`)
    return repo
  }

  /** Owner, member of the owning organization, or collaborator. */
  const canWrite = (caller: Caller, repo: FakeRepo) => {
    const who = lower(caller.login)
    return (
      lower(repo.owner) === who ||
      (accounts.get(lower(repo.owner))?.members.has(who) ?? false) ||
      repo.collaborators.has(who)
    )
  }
  const canCreateIn = (caller: Caller, owner: string) =>
    lower(owner) === lower(caller.login) ||
    (accounts.get(lower(owner))?.members.has(lower(caller.login)) ?? false)

  function createRepo(
    name: string,
    options: {
      defaultBranch?: string
      public?: boolean
      isTemplate?: boolean
      description?: string | null
      collaborators?: string[]
    },
  ) {
    const [owner = '', repoName = ''] = name.split('/')
    const { publicKey, privateKey } = sodium.crypto_box_keypair()
    const repo: FakeRepo = {
      id: nextId++,
      owner: account(owner).login,
      name: repoName,
      description: options.description ?? null,
      public: options.public ?? false,
      isTemplate: options.isTemplate ?? false,
      collaborators: new Set((options.collaborators ?? []).map(lower)),
      defaultBranch: options.defaultBranch ?? 'main',
      createdAt: stamp(),
      files: new Map(),
      commits: [],
      keys: { keyId: String(randomInt(2 ** 40, 2 ** 47)), publicKey, privateKey },
      secrets: new Map(),
      variables: new Map(),
      workflows: new Map(),
      dispatches: [],
    }
    repos.set(lower(name), repo)
    return repo
  }

  /** One commit on the default branch; files under `.github/workflows/` become (active) workflows. */
  function commit(repo: FakeRepo, message: string, changes: [path: string, content: Buffer][]) {
    const date = stamp(60_000)
    for (const [path, content] of changes) {
      repo.files.set(path, { content, sha: blobSha(content) })
      const workflow = repo.workflows.get(path)
      if (workflow) workflow.updated_at = date
      else if (WORKFLOW_FILE.test(path)) {
        repo.workflows.set(path, { id: nextId++, path, state: 'active', created_at: date, updated_at: date })
      }
    }
    const entry = {
      sha: randomBytes(20).toString('hex'),
      message,
      date,
      paths: changes.map(([path]) => path),
    }
    repo.commits.unshift(entry)
    return entry
  }

  async function pushed(repo: FakeRepo, entry: FakeCommit, created: boolean) {
    const push = {
      repo: fullName(repo),
      ref: `refs/heads/${repo.defaultBranch}`,
      sha: entry.sha,
      paths: entry.paths,
      created,
    }
    for (const listener of pushListeners) await listener(push)
  }

  const ownerJson = (owner: FakeAccount) => ({
    login: owner.login,
    id: owner.id,
    node_id: `${owner.type === 'User' ? 'U' : 'O'}_kgDO${owner.id}`,
    type: owner.type,
    html_url: `https://github.com/${owner.login}`,
    url: `${baseUrl}/${owner.type === 'User' ? 'users' : 'orgs'}/${owner.login}`,
    site_admin: false,
  })

  function repoJson(repo: FakeRepo, caller: Caller, withTemplate = true): Record<string, unknown> {
    const write = canWrite(caller, repo)
    return {
      id: repo.id,
      node_id: `R_kgDO${repo.id}`,
      name: repo.name,
      full_name: fullName(repo),
      owner: ownerJson(account(repo.owner)),
      private: !repo.public,
      visibility: repo.public ? 'public' : 'private',
      description: repo.description,
      fork: false,
      html_url: `https://github.com/${fullName(repo)}`,
      url: `${baseUrl}/repos/${fullName(repo)}`,
      default_branch: repo.defaultBranch,
      is_template: repo.isTemplate,
      archived: false,
      disabled: false,
      created_at: repo.createdAt,
      updated_at: repo.commits[0]?.date ?? repo.createdAt,
      pushed_at: repo.commits[0]?.date ?? repo.createdAt,
      permissions: { admin: write, maintain: write, push: write, triage: write, pull: true },
      ...(withTemplate
        ? { template_repository: repo.template ? repoJson(repo.template, caller, false) : null }
        : {}),
    }
  }

  function workflowJson(repo: FakeRepo, workflow: WorkflowRecord) {
    const name = workflowName(repo.files.get(workflow.path)?.content.toString('utf8') ?? '', workflow.path)
    return {
      id: workflow.id,
      node_id: `W_kwDO${workflow.id}`,
      name,
      path: workflow.path,
      state: workflow.state,
      created_at: workflow.created_at,
      updated_at: workflow.updated_at,
      url: `${baseUrl}/repos/${fullName(repo)}/actions/workflows/${workflow.id}`,
      html_url: `https://github.com/${fullName(repo)}/blob/${repo.defaultBranch}/${workflow.path}`,
      badge_url: `https://github.com/${fullName(repo)}/workflows/${encodeURIComponent(name)}/badge.svg`,
    }
  }

  /** `workflow_id` is the numeric id or the file name, as GitHub accepts both. */
  const findWorkflow = (repo: FakeRepo, id: string) =>
    [...repo.workflows.values()].find((workflow) =>
      /^\d+$/.test(id) ? workflow.id === Number(id) : workflow.path.split('/').pop() === id,
    )

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

  const readBody = async (req: IncomingMessage) => {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    return Buffer.concat(chunks).toString('utf8')
  }

  /** The JSON object a request sent; undefined when it is not one (GitHub answers 400). */
  const parse = (body: string): Record<string, unknown> | undefined => {
    try {
      const value = JSON.parse(body || '{}') as unknown
      return typeof value === 'object' && value !== null && !Array.isArray(value)
        ? (value as Record<string, unknown>)
        : undefined
    } catch {
      return undefined
    }
  }
  const badJson = () => fail(400, 'Problems parsing JSON')
  const missing = (field: string) => fail(422, `Invalid request.\n\n"${field}" wasn't supplied.`)

  function takeFault(method: string, path: string) {
    const fault = faults.find((candidate) => {
      if (candidate.method && candidate.method.toUpperCase() !== method) return false
      if (typeof candidate.path === 'string') return candidate.path === path
      candidate.path.lastIndex = 0
      return candidate.path.test(path)
    })
    if (!fault) return undefined
    fault.times -= 1
    if (fault.times <= 0) faults.splice(faults.indexOf(fault), 1)
    return fault.answer
  }

  /** Secret and variable names: letters, digits and underscores, not starting with a digit or `GITHUB_`. */
  function badName(name: string) {
    if (!ACTIONS_NAME.test(name)) {
      return fail(
        422,
        'Names can only contain alphanumeric characters ([a-z], [A-Z], [0-9]) or underscores (_). Spaces are not allowed. Must start with a letter ([a-z], [A-Z]) or underscores (_).',
      )
    }
    if (/^GITHUB_/i.test(name)) return fail(422, 'Names must not start with GITHUB_.')
    return undefined
  }

  async function handle(request: Incoming): Promise<FakeAnswer> {
    const { method, url, caller } = request
    if (method === 'GET' && url.pathname === '/user') {
      const user = account(caller.login)
      return {
        status: 200,
        body: { ...ownerJson(user), name: user.name, email: null, created_at: '2020-01-01T00:00:00Z' },
      }
    }
    const org = /^\/orgs\/([^/]+)$/.exec(url.pathname)
    if (org && method === 'GET') {
      const found = accounts.get(lower(decodeURIComponent(org[1] ?? '')))
      if (found?.type !== 'Organization') return notFound()
      return { status: 200, body: { ...ownerJson(found), name: found.name, description: null } }
    }

    const match = /^\/repos\/([^/]+)\/([^/]+)(?:\/(.*))?$/.exec(url.pathname)
    if (!match) return notFound()
    const [, owner = '', name = '', rest = ''] = match
    const repo = findRepo(`${decodeURIComponent(owner)}/${decodeURIComponent(name)}`)
    // GitHub hides a private repository from whoever cannot reach it.
    if (!repo || !(repo.public || canWrite(caller, repo))) return notFound()

    if (method === 'GET' && !rest) return { status: 200, body: repoJson(repo, caller) }
    if (method === 'POST' && rest === 'generate') return generate(request, repo)
    if (method === 'GET' && rest === 'commits') return listCommits(url, repo)
    const contents = /^contents\/(.+)$/.exec(rest)
    if (contents) return fileContents(request, repo, decodeURIComponent(contents[1] ?? ''))

    const actions = /^actions\/(secrets|variables|workflows)(?:\/(.+))?$/.exec(rest)
    if (!actions) return notFound()
    // Secrets, variables and workflow states need write access; a public repository's readers get 403.
    if (!canWrite(caller, repo)) return fail(403, 'Must have admin rights to Repository.')
    const [, area, item] = actions
    if (area === 'secrets') return secrets(request, repo, item)
    if (area === 'variables') return variables(request, repo, item)
    return workflows(request, repo, item)
  }

  /** `POST /repos/{template_owner}/{template_repo}/generate`: a new repository with the template's files. */
  async function generate({ body, caller }: Incoming, template: FakeRepo): Promise<FakeAnswer> {
    if (!template.isTemplate) return fail(422, `${fullName(template)} is not a template repository`)
    const input = parse(body)
    if (!input) return badJson()
    if (typeof input.name !== 'string' || !input.name) return missing('name')
    const owner = typeof input.owner === 'string' ? input.owner : caller.login
    if (!canCreateIn(caller, owner)) {
      return fail(403, 'You need admin access to the organization before adding a repository to it.')
    }
    if (findRepo(`${owner}/${input.name}`)) {
      return fail(422, 'Repository creation failed.', {
        errors: [
          {
            resource: 'Repository',
            code: 'custom',
            field: 'name',
            message: 'name already exists on this account',
          },
        ],
      })
    }
    const repo = createRepo(`${account(owner).login}/${input.name}`, {
      defaultBranch: template.defaultBranch,
      public: input.private !== true,
      description: typeof input.description === 'string' ? input.description : null,
    })
    repo.template = template
    if (template.files.size > 0) {
      const files = [...template.files].map(([path, file]): [string, Buffer] => [path, file.content])
      await pushed(repo, commit(repo, 'Initial commit', files), true)
    }
    return {
      status: 201,
      body: repoJson(repo, caller),
      headers: { location: `${baseUrl}/repos/${fullName(repo)}` },
    }
  }

  function listCommits(url: URL, repo: FakeRepo): FakeAnswer {
    const branch = url.searchParams.get('sha') ?? repo.defaultBranch
    if (branch !== repo.defaultBranch) return notFound()
    if (repo.commits.length === 0) return fail(409, 'Git Repository is empty.')
    const only = url.searchParams.get('path')
    const perPage = Number(url.searchParams.get('per_page') ?? 30)
    const found = repo.commits.filter((entry) => !only || entry.paths.includes(only)).slice(0, perPage)
    return {
      status: 200,
      body: found.map((entry) => ({
        sha: entry.sha,
        commit: {
          message: entry.message,
          author: { name: 'Curio', email: 'curio@example.com', date: entry.date },
          committer: { name: 'GitHub', email: 'noreply@github.com', date: entry.date },
        },
      })),
    }
  }

  /** `GET` and `PUT /repos/{owner}/{repo}/contents/{path}`, on the default branch only. */
  async function fileContents({ method, url, body, caller }: Incoming, repo: FakeRepo, path: string) {
    if (method === 'GET') {
      const ref = url.searchParams.get('ref')
      if (ref && ref !== repo.defaultBranch) return fail(404, 'No commit found for the ref')
      const file = repo.files.get(path)
      return file ? { status: 200, body: contentOf(path, file) } : notFound()
    }
    if (method !== 'PUT') return notFound()
    const hook = beforeNextPut
    beforeNextPut = undefined
    hook?.()
    const input = parse(body) ?? {}
    const answer = (reply: FakeAnswer) => {
      puts.push({ status: reply.status, sha: typeof input.sha === 'string' ? input.sha : undefined })
      return reply
    }
    if (!canWrite(caller, repo)) return answer(notFound())
    if (typeof input.message !== 'string' || typeof input.content !== 'string') {
      return answer(fail(422, 'Invalid request.'))
    }
    if (input.branch && input.branch !== repo.defaultBranch) return answer(fail(404, 'Branch not found'))
    const current = repo.files.get(path)
    if (current && !input.sha) return answer(fail(422, 'Invalid request.\n\n"sha" wasn\'t supplied.'))
    if (current && input.sha !== current.sha) {
      return answer(fail(409, `${path} does not match ${String(input.sha)}`))
    }
    const entry = commit(repo, input.message, [[path, Buffer.from(input.content, 'base64')]])
    await pushed(repo, entry, false)
    const file = repo.files.get(path) as FakeFile
    return answer({
      status: current ? 200 : 201,
      body: {
        content: { ...contentOf(path, file), content: undefined },
        commit: { sha: entry.sha, message: entry.message },
      },
    })
  }

  const valueJson = ({ name, created_at, updated_at }: FakeValue) => ({ name, created_at, updated_at })

  /**
   * `.../actions/secrets`: the repository's public key, and secrets sealed to it (`crypto_box_seal`); a
   * value that does not open with the repository's key pair, or names another key, is refused.
   */
  function secrets({ method, body }: Incoming, repo: FakeRepo, item: string | undefined): FakeAnswer {
    if (method === 'GET' && item === 'public-key') {
      const key = sodium.to_base64(repo.keys.publicKey, sodium.base64_variants.ORIGINAL)
      return { status: 200, body: { key_id: repo.keys.keyId, key } }
    }
    if (method === 'GET' && !item) {
      const list = [...repo.secrets.values()].map(valueJson)
      return { status: 200, body: { total_count: list.length, secrets: list } }
    }
    if (!item || item.includes('/')) return notFound()
    const name = decodeURIComponent(item)
    if (method === 'GET') {
      const found = repo.secrets.get(name.toUpperCase())
      return found ? { status: 200, body: valueJson(found) } : notFound()
    }
    if (method !== 'PUT') return notFound()
    const input = parse(body)
    if (!input) return badJson()
    const invalid = badName(name)
    if (invalid) return invalid
    if (typeof input.key_id !== 'string') return missing('key_id')
    if (typeof input.encrypted_value !== 'string') return missing('encrypted_value')
    if (!BASE64.test(input.encrypted_value)) {
      return fail(422, `Invalid request.\n\n${input.encrypted_value} does not match ${BASE64}.`)
    }
    const plaintext = input.key_id === repo.keys.keyId ? open(repo, input.encrypted_value) : undefined
    if (plaintext === undefined) {
      return fail(422, 'Bad request - validation failed due to an improperly encrypted secret')
    }
    const key = name.toUpperCase()
    const existing = repo.secrets.get(key)
    const at = stamp()
    repo.secrets.set(key, {
      name: key,
      value: plaintext,
      created_at: existing?.created_at ?? at,
      updated_at: at,
    })
    return existing ? { status: 204 } : { status: 201, body: {} }
  }

  /** A sealed box opened with the repository's key pair; undefined when it does not open. */
  function open(repo: FakeRepo, encrypted: string) {
    try {
      const sealed = sodium.from_base64(encrypted, sodium.base64_variants.ORIGINAL)
      const opened = sodium.crypto_box_seal_open(sealed, repo.keys.publicKey, repo.keys.privateKey)
      return Buffer.from(opened).toString('utf8')
    } catch {
      return undefined
    }
  }

  /** `.../actions/variables`: create (409 when it exists), get, update (404 when missing), list. */
  function variables({ method, body }: Incoming, repo: FakeRepo, item: string | undefined): FakeAnswer {
    if (!item) {
      if (method === 'GET') {
        const list = [...repo.variables.values()]
        return { status: 200, body: { total_count: list.length, variables: list } }
      }
      if (method !== 'POST') return notFound()
      const input = parse(body)
      if (!input) return badJson()
      if (typeof input.name !== 'string') return missing('name')
      if (typeof input.value !== 'string') return missing('value')
      const invalid = badName(input.name)
      if (invalid) return invalid
      const key = input.name.toUpperCase()
      if (repo.variables.has(key)) return fail(409, 'Already exists - Variable already exists')
      const at = stamp()
      repo.variables.set(key, { name: key, value: input.value, created_at: at, updated_at: at })
      return { status: 201, body: {} }
    }
    if (item.includes('/')) return notFound()
    const key = decodeURIComponent(item).toUpperCase()
    const found = repo.variables.get(key)
    if (!found) return notFound()
    if (method === 'GET') return { status: 200, body: found }
    if (method !== 'PATCH') return notFound()
    const input = parse(body)
    if (!input) return badJson()
    const renamed = typeof input.name === 'string' ? input.name.toUpperCase() : key
    const invalid = badName(renamed)
    if (invalid) return invalid
    if (renamed !== key && repo.variables.has(renamed)) {
      return fail(409, 'Already exists - Variable already exists')
    }
    repo.variables.delete(key)
    const value = typeof input.value === 'string' ? input.value : found.value
    repo.variables.set(renamed, { ...found, name: renamed, value, updated_at: stamp() })
    return { status: 204 }
  }

  /** `.../actions/workflows`: list, get, `enable`, `disable` and `dispatches`. */
  async function workflows({ method, body }: Incoming, repo: FakeRepo, item: string | undefined) {
    if (method === 'GET' && !item) {
      const list = [...repo.workflows.values()].map((workflow) => workflowJson(repo, workflow))
      return { status: 200, body: { total_count: list.length, workflows: list } }
    }
    const [, id = '', action] = /^([^/]+)(?:\/(enable|disable|dispatches))?$/.exec(item ?? '') ?? []
    const workflow = findWorkflow(repo, decodeURIComponent(id))
    if (!workflow) return notFound()
    if (method === 'GET' && !action) return { status: 200, body: workflowJson(repo, workflow) }
    if (method === 'PUT' && (action === 'enable' || action === 'disable')) {
      workflow.state = action === 'enable' ? 'active' : 'disabled_manually'
      workflow.updated_at = stamp()
      return { status: 204 }
    }
    if (method !== 'POST' || action !== 'dispatches') return notFound()
    return dispatch(repo, workflow, body)
  }

  /**
   * A `workflow_dispatch`: the ref must be the default branch, the workflow must have the trigger and be
   * active, and the inputs must be the ones it declares (required ones without a default given).
   */
  async function dispatch(repo: FakeRepo, workflow: WorkflowRecord, body: string): Promise<FakeAnswer> {
    const input = parse(body)
    if (!input) return badJson()
    if (typeof input.ref !== 'string') return missing('ref')
    if (input.ref.replace(/^refs\/heads\//, '') !== repo.defaultBranch) {
      return fail(422, `No ref found for: ${input.ref}`)
    }
    const text = repo.files.get(workflow.path)?.content.toString('utf8') ?? ''
    if (!/\bworkflow_dispatch\b/.test(text)) {
      return fail(422, "Workflow does not have 'workflow_dispatch' trigger")
    }
    if (workflow.state !== 'active') {
      return fail(422, "Cannot trigger a 'workflow_dispatch' on a disabled workflow")
    }
    const inputs = (typeof input.inputs === 'object' && input.inputs) || {}
    const declared = dispatchInputs(text)
    const unexpected = Object.keys(inputs).filter((key) => !declared.has(key))
    if (unexpected.length > 0) return fail(422, `Unexpected inputs provided: ${JSON.stringify(unexpected)}`)
    const absent = [...declared].find(
      ([key, { required }]) => required && (inputs as Record<string, unknown>)[key] === undefined,
    )
    if (absent) return fail(422, `Required input '${absent[0]}' not provided`)
    const accepted = {
      workflow: workflow.path.split('/').pop() ?? workflow.path,
      ref: input.ref,
      inputs: inputs as Record<string, unknown>,
    }
    repo.dispatches.push({ ...accepted, at: stamp() })
    for (const listener of dispatchListeners) await listener({ repo: fullName(repo), ...accepted })
    return { status: 204 }
  }

  const server = createServer(async (req, res) => {
    const body = await readBody(req)
    const url = new URL(req.url ?? '/', 'http://fake')
    const method = req.method ?? 'GET'
    authorizations.push(req.headers.authorization)
    const presented = /^(?:token|bearer) (.+)$/i.exec(req.headers.authorization ?? '')?.[1]
    const caller = presented === undefined ? undefined : tokens.get(presented)
    let answer = takeFault(method, url.pathname)
    if (answer) {
      answer = {
        ...answer,
        body:
          answer.body ??
          fail(
            answer.status,
            faultMessage(answer.status, answer.headers ?? {}, caller && account(caller.login).id),
          ).body,
      }
      if (method === 'PUT' && /^\/repos\/[^/]+\/[^/]+\/contents\//.test(url.pathname)) {
        const sha = parse(body)?.sha
        puts.push({ status: answer.status, sha: typeof sha === 'string' ? sha : undefined })
      }
    } else if (!caller) {
      answer = fail(401, 'Bad credentials')
    } else {
      try {
        answer = await handle({ method, url, body, caller })
      } catch (error) {
        console.error('github fake:', error)
        answer = fail(500, `github fake: ${error instanceof Error ? error.message : String(error)}`)
      }
    }
    requests.push({ method, path: url.pathname, status: answer.status })
    const headers: Record<string, string> = {
      'x-github-request-id': randomBytes(8).toString('hex').toUpperCase(),
      ...(caller ? { 'x-oauth-scopes': caller.scopes.join(', ') } : {}),
      ...answer.headers,
    }
    if (answer.body === undefined) return res.writeHead(answer.status, headers).end()
    headers['content-type'] = 'application/json; charset=utf-8'
    res.writeHead(answer.status, headers).end(JSON.stringify(answer.body))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  baseUrl = `http://127.0.0.1:${port}`

  const fake = {
    url: baseUrl,
    /** Every contents PUT's answer status and the sha it sent, in order. */
    puts,
    /** The authorization header of every request. */
    authorizations,
    /** Every request's method, path (no query) and answer status, in order; bodies are not kept. */
    requests,
    /**
     * A personal access token (classic) of user `login`; its `scopes` are reported in `x-oauth-scopes`
     * as GitHub does, not enforced.
     */
    addToken(
      secret: string,
      { login, name, scopes = ['repo', 'workflow'] }: { login: string; name?: string; scopes?: string[] },
    ) {
      const user = account(login)
      if (name) user.name = name
      tokens.set(secret, { login: user.login, scopes })
    },
    /** Revokes a token: GitHub then answers it 401 Bad credentials. */
    revokeToken(secret: string) {
      tokens.delete(secret)
    },
    /** An organization (`GET /orgs/{org}`); its members reach and may generate into its repositories. */
    addOrg(org: string, members: string[] = []) {
      const found = account(org, 'Organization')
      found.type = 'Organization'
      for (const member of members) found.members.add(lower(member))
    },
    /**
     * An empty repository. `collaborators` (default: the fake's own login) may read and write it besides
     * its owner and the owning organization's members; anyone may read a `public` one.
     */
    addRepo(
      name: string,
      defaultBranch = 'main',
      options: { public?: boolean; description?: string; collaborators?: string[] } = {},
    ) {
      createRepo(name, { ...options, defaultBranch, collaborators: options.collaborators ?? [primaryLogin] })
    },
    /**
     * A template repository (`is_template: true`) with `files` in one commit; files under
     * `.github/workflows/` become its workflows and are copied, like every file, by `generate`.
     */
    addTemplate(
      name: string,
      files: Record<string, string>,
      options: { public?: boolean; defaultBranch?: string; collaborators?: string[] } = {},
    ) {
      const repo = createRepo(name, {
        ...options,
        isTemplate: true,
        collaborators: options.collaborators ?? [primaryLogin],
      })
      const changes = Object.entries(files).map(([path, text]): [string, Buffer] => [
        path,
        Buffer.from(text, 'utf8'),
      ])
      if (changes.length > 0) commit(repo, 'Initial commit', changes)
    },
    /** Commits `text` to `path` on the default branch, as someone else would (no `onPush` call). */
    writeFile(name: string, path: string, text: string, message = `Write ${path}`) {
      return commit(repoOrThrow(name), message, [[path, Buffer.from(text, 'utf8')]])
    },
    readFile(name: string, path: string): string | undefined {
      return findRepo(name)?.files.get(path)?.content.toString('utf8')
    },
    commits(name: string): FakeCommit[] {
      return findRepo(name)?.commits ?? []
    },
    beforeNextPut(hook: () => void) {
      beforeNextPut = hook
    },
    /** The repository's Actions secrets, decrypted with its private key: proof they were sealed right. */
    secrets(name: string): Record<string, string> {
      return Object.fromEntries(
        [...repoOrThrow(name).secrets.values()].map((entry) => [entry.name, entry.value]),
      )
    },
    variables(name: string): Record<string, string> {
      return Object.fromEntries(
        [...repoOrThrow(name).variables.values()].map((entry) => [entry.name, entry.value]),
      )
    },
    workflows(name: string): FakeWorkflow[] {
      const repo = repoOrThrow(name)
      return [...repo.workflows.values()].map(({ id, path, state }) => ({
        id,
        path,
        state,
        name: workflowName(repo.files.get(path)?.content.toString('utf8') ?? '', path),
      }))
    },
    /** Disables a workflow (state `disabled_manually`) as a person would in the Actions tab. */
    disableWorkflow(name: string, file: string) {
      const workflow = findWorkflow(repoOrThrow(name), file)
      if (!workflow) throw new Error(`github fake: no workflow ${file} in ${name}`)
      workflow.state = 'disabled_manually'
    },
    /** The workflow dispatches the repository accepted, oldest first. */
    dispatches(name: string) {
      return [...repoOrThrow(name).dispatches]
    },
    /**
     * Called for every accepted `workflow_dispatch`, awaited before the 204 goes out (so the "run" has
     * happened when the client's call returns). Returns a function that removes the listener.
     */
    onDispatch(listener: (dispatch: FakeDispatch) => unknown) {
      dispatchListeners.add(listener)
      return () => dispatchListeners.delete(listener)
    },
    /**
     * Called for each commit to a default branch through the API: a contents `PUT`, and the initial commit
     * of a repository generated from a template (`created: true`), as GitHub's `push` trigger fires on
     * both. Awaited before the answer. Returns a function that removes the listener.
     */
    onPush(listener: (push: FakePush) => unknown) {
      pushListeners.add(listener)
      return () => pushListeners.delete(listener)
    },
    /**
     * Answers the next `times` requests matching `method` (any when omitted) and `path` (exact pathname
     * or RegExp) with `answer` instead, before authentication. Without a body, GitHub's message for the
     * status is sent, the rate-limit ones included: 403 with `x-ratelimit-remaining: 0` (and
     * `x-ratelimit-reset`), or 429 / 403 with `retry-after` for the secondary limit.
     */
    failNext(match: { method?: string; path: RegExp | string }, answer: FakeAnswer, times = 1) {
      faults.push({ ...match, answer, times })
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
  fake.addToken(token, { login: primaryLogin, scopes: primaryScopes })
  return fake
}

export type GitHubFake = Awaited<ReturnType<typeof startGitHubFake>>
