import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { createLogger } from '../../src/lib/logger.ts'
import { type GitHubFake, startGitHubFake } from '../fakes/github.ts'
import { APP_ORIGIN, type DirectoryHarness, startDirectory } from '../helpers/apps.ts'
import { type Requests, requests } from '../helpers/requests.ts'

const TOKEN = `ghp_${randomBytes(12).toString('hex')}`
const REPOSITORY = 'acme/awesome-data'
const FILE = 'categories.json'
const GIT = '/api/admin/categories/git'

let github: GitHubFake
let h: DirectoryHarness
let admin: string
/** The admin's requests, as the categories screen sends them (from inject's own address). */
let api: Requests
const extra: DirectoryHarness[] = []

before(async () => {
  github = await startGitHubFake({ token: TOKEN })
  github.addRepo(REPOSITORY, 'main')
  h = await startDirectory({
    env: { DATA_REPOSITORY: REPOSITORY, GIT_TOKEN: TOKEN, GITHUB_API_URL: github.url },
  })
  admin = await h.adminCookie()
  api = requests(h, { origin: APP_ORIGIN, cookie: admin })
})
after(async () => {
  for (const harness of extra) await harness.close()
  await h.close()
  await github.close()
})

/** Another app on the same database with other settings, signed in as an admin. */
async function startOther(env: Record<string, string | undefined>, log = createLogger('silent')) {
  const harness = await startDirectory({ env, databases: h.databases, log })
  extra.push(harness)
  return { harness, cookie: await harness.adminCookie() }
}

const uniqueId = (prefix = 'cat') => `${prefix}-${randomBytes(4).toString('hex')}`

const fileEntries = () =>
  JSON.parse(github.readFile(REPOSITORY, FILE) ?? '[]') as { id: string; name: string }[]

async function activeCategories() {
  const res = await api.get('/api/admin/categories?limit=100')
  assert.equal(res.statusCode, 200, res.body)
  return (res.json().categories as { id: string; name: string }[]).map(({ id, name }) => ({ id, name }))
}

describe('admin categories in Git: access', () => {
  it('answers 500 with a clear message when the data repository or the token is not configured', async () => {
    for (const env of [
      { DATA_REPOSITORY: undefined, GIT_TOKEN: TOKEN, GITHUB_API_URL: github.url },
      { DATA_REPOSITORY: REPOSITORY, GIT_TOKEN: undefined, GITHUB_API_URL: github.url },
    ]) {
      const { harness, cookie } = await startOther(env)
      for (const res of [
        await requests(harness, { origin: APP_ORIGIN, cookie }).get(GIT),
        await requests(harness, { origin: APP_ORIGIN, cookie }).post(GIT, {
          id: 'not-configured',
          name: 'Not configured',
        }),
      ]) {
        assert.equal(res.statusCode, 500, res.body)
        assert.deepEqual(res.json(), {
          success: false,
          error: 'Data repository or Git token not configured',
          code: 'GIT_NOT_CONFIGURED',
        })
      }
    }
  })
})

describe('admin categories in Git: OpenAPI', () => {
  it('documents both routes under categories with the session cookie and names the file', async () => {
    const document = (await h.app.inject({ method: 'GET', url: '/openapi.json' })).json()
    const methods = document.paths[GIT] as Record<string, Record<string, unknown>>
    assert.deepEqual(Object.keys(methods).sort(), ['get', 'post'])
    for (const operation of Object.values(methods)) {
      assert.deepEqual(operation.tags, ['categories'])
      assert.deepEqual(operation.security, [{ sessionCookie: [] }])
      assert.ok(operation.summary)
      assert.match(String(operation.description), /categories\.json/)
      assert.ok((operation.responses as Record<string, unknown>)['200'])
    }
  })
})

describe('admin categories in Git: status', () => {
  it('answers an empty list when the file does not exist yet', async () => {
    const res = await api.get(GIT)
    assert.equal(res.statusCode, 200, res.body)
    const body = res.json()
    assert.equal(body.success, true)
    assert.deepEqual(body.categories, [])
    assert.equal(body.status.repository, REPOSITORY)
    assert.equal(body.status.branch, 'main')
    assert.equal(body.status.lastCommit, null, 'an empty repository has no commit')
    assert.equal(typeof body.message, 'string')
  })

  it('reports the file, its last commit and whether the stored categories match it', async () => {
    const stored = await activeCategories()
    const written = github.writeFile(REPOSITORY, FILE, JSON.stringify(stored))
    let res = await api.get(GIT)
    assert.equal(res.statusCode, 200, res.body)
    let body = res.json()
    assert.deepEqual(body.categories, stored)
    assert.equal(body.status.lastCommit, written.sha)
    assert.equal(body.status.lastCommitDate, written.date)
    assert.equal(body.status.isUpToDate, true)

    // A category stored here but not in the file: out of date, until it is committed.
    const id = uniqueId('db')
    const created = await api.post('/api/admin/categories', { id, name: `Stored ${id}` })
    assert.equal(created.statusCode, 201, created.body)
    res = await api.get(GIT)
    body = res.json()
    assert.equal(body.status.isUpToDate, false)

    const committed = await api.post(GIT, { id, name: `Stored ${id}` })
    assert.equal(committed.statusCode, 200, committed.body)
    res = await api.get(GIT)
    body = res.json()
    assert.equal(body.status.isUpToDate, true)
    assert.equal(
      body.status.lastCommit,
      github.commits(REPOSITORY)[0]?.sha,
      'the newest commit touching the file',
    )

    // A renamed entry in the file is out of date too.
    github.writeFile(REPOSITORY, FILE, JSON.stringify([...stored, { id, name: `Renamed ${id}` }]))
    res = await api.get(GIT)
    assert.equal(res.json().status.isUpToDate, false)
    // Put it back so the other tests start from a matching file.
    await api.post(GIT, { id, name: `Stored ${id}` })
  })

  it('uses the branch head for the last commit when no commit touched the file', async () => {
    const repository = `acme/other-${randomBytes(3).toString('hex')}`
    github.addRepo(repository, 'trunk')
    const head = github.writeFile(repository, 'README.md', '# data\n')
    const { harness, cookie } = await startOther({
      DATA_REPOSITORY: repository,
      GIT_TOKEN: TOKEN,
      GITHUB_API_URL: github.url,
    })
    const res = await requests(harness, { origin: APP_ORIGIN, cookie }).get(GIT)
    assert.equal(res.statusCode, 200, res.body)
    const body = res.json()
    assert.equal(body.status.branch, 'trunk')
    assert.equal(body.status.lastCommit, head.sha)
    assert.deepEqual(body.categories, [])
  })
})

describe('admin categories in Git: commit', () => {
  it('adds an entry in one commit, then updates it on a second POST of the same id', async () => {
    const id = uniqueId('tools')
    const before = github.commits(REPOSITORY).length
    let res = await api.post(GIT, { id, name: 'Dev Tools' })
    assert.equal(res.statusCode, 200, res.body)
    assert.deepEqual(res.json(), {
      success: true,
      category: { id, name: 'Dev Tools' },
      message: 'Category added to the data repository',
    })
    assert.deepEqual(
      fileEntries().filter((entry) => entry.id === id),
      [{ id, name: 'Dev Tools' }],
    )
    assert.equal(github.commits(REPOSITORY).length, before + 1)
    assert.equal(github.commits(REPOSITORY)[0]?.message, 'Add category Dev Tools')

    res = await api.post(GIT, { id, name: '  Developer Tools ' })
    assert.equal(res.statusCode, 200, res.body)
    assert.equal(res.json().category.name, 'Developer Tools')
    assert.equal(res.json().message, 'Category updated in the data repository')
    assert.deepEqual(
      fileEntries().filter((entry) => entry.id === id),
      [{ id, name: 'Developer Tools' }],
      'updated in place, not duplicated',
    )
    assert.equal(github.commits(REPOSITORY)[0]?.message, 'Update category Developer Tools')

    // The same entry again commits nothing.
    const count = github.commits(REPOSITORY).length
    res = await api.post(GIT, { id, name: 'Developer Tools' })
    assert.equal(res.statusCode, 200, res.body)
    assert.equal(github.commits(REPOSITORY).length, count)
  })

  it('creates the file with the first commit', async () => {
    const repository = `acme/fresh-${randomBytes(3).toString('hex')}`
    github.addRepo(repository)
    const { harness, cookie } = await startOther({
      DATA_REPOSITORY: repository,
      GIT_TOKEN: TOKEN,
      GITHUB_API_URL: github.url,
    })
    const res = await requests(harness, { origin: APP_ORIGIN, cookie }).post(GIT, {
      id: 'first',
      name: 'First',
    })
    assert.equal(res.statusCode, 200, res.body)
    assert.deepEqual(JSON.parse(github.readFile(repository, FILE) ?? 'null'), [
      { id: 'first', name: 'First' },
    ])
    assert.equal(github.commits(repository)[0]?.message, 'Add category First')
  })

  it('reads the file again and retries once when its sha went stale', async () => {
    const id = uniqueId('retry')
    const other = uniqueId('other')
    github.beforeNextPut(() => {
      github.writeFile(
        REPOSITORY,
        FILE,
        JSON.stringify([...fileEntries(), { id: other, name: 'Someone else' }]),
      )
    })
    const puts = github.puts.length
    const res = await api.post(GIT, { id, name: 'Retried' })
    assert.equal(res.statusCode, 200, res.body)
    assert.deepEqual(
      github.puts.slice(puts).map((put) => put.status),
      [409, 200],
      'one stale PUT, one retry',
    )
    const ids = fileEntries().map((entry) => entry.id)
    assert.ok(ids.includes(id) && ids.includes(other), 'the retry keeps the change made in between')
  })

  it('answers 409 when the file changes again during the retry', async () => {
    const puts = github.puts.length
    const change = () =>
      github.writeFile(
        REPOSITORY,
        FILE,
        JSON.stringify([...fileEntries(), { id: uniqueId('race'), name: 'Race' }]),
      )
    github.beforeNextPut(() => {
      change()
      github.beforeNextPut(change)
    })
    const res = await api.post(GIT, { id: uniqueId('lost'), name: 'Lost race' })
    assert.equal(res.statusCode, 409, res.body)
    assert.equal(res.json().success, false)
    assert.deepEqual(
      github.puts.slice(puts).map((put) => put.status),
      [409, 409],
      'retried once only',
    )
  })

  it('answers 400 for a missing or malformed id or name', async () => {
    for (const payload of [
      {},
      { name: 'No id' },
      { id: 'no-name' },
      { id: 'Upper-Case', name: 'Bad id' },
      { id: 'has space', name: 'Bad id' },
      { id: '', name: 'Empty id' },
      { id: 'short-name', name: 'x' },
      { id: 'blank-name', name: '   ' },
      { id: 'long-name', name: 'x'.repeat(101) },
      { id: 'x'.repeat(101), name: 'Long id' },
    ]) {
      const res = await api.post(GIT, payload)
      assert.equal(res.statusCode, 400, `${JSON.stringify(payload)}: ${res.body}`)
      assert.equal(res.json().success, false)
    }
    // The edges themselves are accepted.
    const edge = await api.post(GIT, { id: 'x'.repeat(100), name: 'ab' })
    assert.equal(edge.statusCode, 200, edge.body)
    const long = await api.post(GIT, { id: 'y'.repeat(100), name: 'n'.repeat(100) })
    assert.equal(long.statusCode, 200, long.body)
  })
})

describe('admin categories in Git: Git host failures', () => {
  it('answers 502 when the Git host refuses the token, with no token in the body or the log', async () => {
    const badToken = `ghp_wrong${randomBytes(12).toString('hex')}`
    const lines: string[] = []
    const log = createLogger('debug', { write: (line: string) => void lines.push(line) })
    const { harness, cookie } = await startOther(
      { DATA_REPOSITORY: REPOSITORY, GIT_TOKEN: badToken, GITHUB_API_URL: github.url },
      log,
    )
    const seen = github.authorizations.length
    for (const res of [
      await requests(harness, { origin: APP_ORIGIN, cookie }).get(GIT),
      await requests(harness, { origin: APP_ORIGIN, cookie }).post(GIT, { id: 'refused', name: 'Refused' }),
    ]) {
      assert.equal(res.statusCode, 502, res.body)
      assert.deepEqual(res.json(), {
        success: false,
        error: 'The Git host refused the token',
        code: 'GIT_AUTH_FAILED',
      })
      assert.ok(!res.body.includes(badToken))
    }
    assert.ok(
      github.authorizations.slice(seen).includes(`token ${badToken}`),
      'the token did reach the Git host',
    )
    assert.ok(lines.length > 0, 'the failures were logged')
    assert.ok(!lines.join('\n').includes(badToken), 'no token in the log')
    assert.ok(!lines.join('\n').includes(TOKEN))
  })

  it('answers 502 with a clear message when the repository does not exist', async () => {
    const { harness, cookie } = await startOther({
      DATA_REPOSITORY: 'acme/missing',
      GIT_TOKEN: TOKEN,
      GITHUB_API_URL: github.url,
    })
    for (const res of [
      await requests(harness, { origin: APP_ORIGIN, cookie }).get(GIT),
      await requests(harness, { origin: APP_ORIGIN, cookie }).post(GIT, { id: 'missing', name: 'Missing' }),
    ]) {
      assert.equal(res.statusCode, 502, res.body)
      assert.deepEqual(res.json(), {
        success: false,
        error: 'The data repository was not found on the Git host',
        code: 'GIT_REPO_NOT_FOUND',
      })
    }
  })

  it('answers 502 when the Git host cannot be reached', async () => {
    const { harness, cookie } = await startOther({
      DATA_REPOSITORY: REPOSITORY,
      GIT_TOKEN: TOKEN,
      GITHUB_API_URL: 'http://127.0.0.1:9',
    })
    const res = await requests(harness, { origin: APP_ORIGIN, cookie }).get(GIT)
    assert.equal(res.statusCode, 502, res.body)
    assert.equal(res.json().success, false)
    assert.ok(!res.body.includes(TOKEN))
  })
})
