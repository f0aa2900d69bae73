import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { eq } from 'drizzle-orm'
import { users } from '../../src/directory/accounts/tables.ts'
import { PERMISSIONS } from '../../src/directory/roles/permissions.ts'
import { roles } from '../../src/directory/roles/tables.ts'
import {
  APP_ORIGIN,
  type DirectoryHarness,
  randomAddress,
  sessionCookie,
  startDirectory,
  uniqueEmail,
} from '../helpers/apps.ts'
import { race } from '../helpers/database.ts'
import { type Requests, requests } from '../helpers/requests.ts'

let h: DirectoryHarness
let admin: string
/** The admin's requests, as the roles screen sends them (from inject's own address). */
let api: Requests

before(async () => {
  h = await startDirectory()
  admin = await h.adminCookie()
  api = requests(h, { origin: APP_ORIGIN, cookie: admin })
})
after(() => h.close())

const suffix = () => randomBytes(4).toString('hex')

async function createRole(fields: Record<string, unknown> = {}) {
  const res = await api.post('/api/admin/roles', {
    name: `Role ${suffix()}`,
    description: 'A test role',
    ...fields,
  })
  assert.equal(res.statusCode, 201, res.body)
  return res.json().data
}

describe('admin roles: happy path', () => {
  it('create answers 201 with the role, its id the slug of the name', async () => {
    const name = `Content Editor ${suffix()}`
    const res = await api.post('/api/admin/roles', { name: `  ${name}  `, description: 'Edits items' })
    assert.equal(res.statusCode, 201)
    const body = res.json()
    assert.equal(body.success, true)
    assert.equal(typeof body.message, 'string')
    assert.deepEqual(Object.keys(body.data).sort(), [
      'created_at',
      'description',
      'id',
      'isAdmin',
      'name',
      'permissions',
      'status',
      'updated_at',
    ])
    assert.equal(body.data.name, name)
    assert.equal(body.data.id, name.toLowerCase().replaceAll(' ', '-'))
    assert.equal(body.data.status, 'active')
    assert.equal(body.data.isAdmin, false)
    assert.deepEqual(body.data.permissions, [])
    assert.ok(!Number.isNaN(Date.parse(body.data.created_at)))
  })

  it('the id strips diacritics: "Éditeurs Senior" becomes "editeurs-senior"', async () => {
    const res = await api.post('/api/admin/roles', { name: 'Éditeurs Senior', description: '' })
    assert.equal(res.statusCode, 201, res.body)
    assert.equal(res.json().data.id, 'editeurs-senior')
    assert.equal(res.json().data.name, 'Éditeurs Senior')
  })

  it('a long name gives an id of at most 64 characters', async () => {
    const role = await createRole({ name: `${suffix()} ${'x'.repeat(90)}` })
    assert.ok(role.id.length <= 64)
    assert.match(role.id, /^[a-z0-9-]+$/)
    assert.doesNotMatch(role.id, /-$/)
  })

  it('create keeps status and isAdmin when given', async () => {
    const role = await createRole({ status: 'inactive', isAdmin: true })
    assert.equal(role.status, 'inactive')
    assert.equal(role.isAdmin, true)
  })

  it('read answers the role', async () => {
    const role = await createRole()
    const res = await api.get(`/api/admin/roles/${role.id}`)
    assert.equal(res.statusCode, 200)
    assert.deepEqual(res.json(), { success: true, data: role })
  })

  it('the seeded admin and user roles exist', async () => {
    const adminRole = (await api.get('/api/admin/roles/admin')).json().data
    assert.equal(adminRole.isAdmin, true)
    assert.equal(adminRole.status, 'active')
    const userRole = (await api.get('/api/admin/roles/user')).json().data
    assert.equal(userRole.isAdmin, false)
  })

  it('list pages and sorts, with total and totalPages', async () => {
    const tag = suffix()
    for (const letter of ['c', 'a', 'b']) await createRole({ name: `${letter} list ${tag}` })
    const all = await api.get('/api/admin/roles?limit=100&sortBy=name&sortOrder=asc')
    assert.equal(all.statusCode, 200)
    const body = all.json()
    assert.equal(body.success, true)
    assert.equal(body.page, 1)
    assert.equal(body.limit, 100)
    assert.equal(body.totalPages, Math.ceil(body.total / 100))
    const names = body.roles
      .map((role: { name: string }) => role.name)
      .filter((name: string) => name.endsWith(tag))
    assert.deepEqual(names, [`a list ${tag}`, `b list ${tag}`, `c list ${tag}`])

    const desc = (await api.get('/api/admin/roles?limit=100&sortOrder=desc')).json()
    const descNames = desc.roles
      .map((role: { name: string }) => role.name)
      .filter((name: string) => name.endsWith(tag))
    assert.deepEqual(descNames, [`c list ${tag}`, `b list ${tag}`, `a list ${tag}`])

    const byId = (await api.get('/api/admin/roles?limit=100&sortBy=id')).json()
    const ids = byId.roles.map((role: { id: string }) => role.id)
    assert.deepEqual(ids, [...ids].sort())

    const second = (await api.get('/api/admin/roles?page=2&limit=2')).json()
    assert.equal(second.page, 2)
    assert.equal(second.limit, 2)
    assert.equal(second.roles.length, 2)
    assert.equal(second.totalPages, Math.ceil(second.total / 2))
  })

  it('list defaults to page 1 and limit 10, and filters by status', async () => {
    await createRole({ status: 'inactive' })
    const body = (await api.get('/api/admin/roles')).json()
    assert.equal(body.page, 1)
    assert.equal(body.limit, 10)
    assert.ok(body.roles.length <= 10)
    const inactive = (await api.get('/api/admin/roles?status=inactive&limit=100')).json()
    assert.ok(inactive.roles.length > 0)
    assert.ok(inactive.roles.every((role: { status: string }) => role.status === 'inactive'))
  })

  it('update changes the given fields and keeps the id', async () => {
    const role = await createRole()
    const name = `Renamed ${suffix()}`
    const res = await api.put(`/api/admin/roles/${role.id}`, { name, status: 'inactive' })
    assert.equal(res.statusCode, 200, res.body)
    const body = res.json()
    assert.equal(body.success, true)
    assert.equal(typeof body.message, 'string')
    assert.equal(body.data.id, role.id)
    assert.equal(body.data.name, name)
    assert.equal(body.data.status, 'inactive')
    assert.equal(body.data.description, role.description)
    const updatedAgain = await api.put(`/api/admin/roles/${role.id}`, {
      description: 'New text',
      isAdmin: true,
    })
    assert.equal(updatedAgain.json().data.description, 'New text')
    assert.equal(updatedAgain.json().data.isAdmin, true)
    assert.equal(updatedAgain.json().data.name, name)
  })

  it('renaming a role to its own name in another case is allowed', async () => {
    const role = await createRole()
    const res = await api.put(`/api/admin/roles/${role.id}`, { name: role.name.toUpperCase() })
    assert.equal(res.statusCode, 200, res.body)
  })

  it('delete without hard marks the role inactive', async () => {
    const role = await createRole()
    const res = await api.delete(`/api/admin/roles/${role.id}`)
    assert.equal(res.statusCode, 200)
    assert.equal(res.json().success, true)
    assert.equal(typeof res.json().message, 'string')
    const read = await api.get(`/api/admin/roles/${role.id}`)
    assert.equal(read.json().data.status, 'inactive')
  })

  it('delete with hard=true removes the role', async () => {
    const role = await createRole()
    const res = await api.delete(`/api/admin/roles/${role.id}?hard=true`)
    assert.equal(res.statusCode, 200)
    assert.equal((await api.get(`/api/admin/roles/${role.id}`)).statusCode, 404)
    const rows = await h.databases.directory.db.select().from(roles).where(eq(roles.id, role.id))
    assert.equal(rows.length, 0)
  })

  it('delete with hard=false is a soft delete', async () => {
    const role = await createRole()
    assert.equal((await api.delete(`/api/admin/roles/${role.id}?hard=false`)).statusCode, 200)
    assert.equal((await api.get(`/api/admin/roles/${role.id}`)).json().data.status, 'inactive')
  })

  it('hard delete leaves the role’s users without a role', async () => {
    const role = await createRole()
    const registered = await h.app.inject({
      method: 'POST',
      url: '/api/auth/register',
      remoteAddress: randomAddress(),
      payload: { email: uniqueEmail(), password: 'a good password', name: 'Role Holder' },
    })
    const userId = registered.json().user.id
    const db = h.databases.directory.db
    await db.update(users).set({ roleId: role.id }).where(eq(users.id, userId))
    assert.equal((await api.delete(`/api/admin/roles/${role.id}?hard=true`)).statusCode, 200)
    const [user] = await db.select({ roleId: users.roleId }).from(users).where(eq(users.id, userId))
    assert.equal(user?.roleId, null)
  })

  it('permissions read answers the permissions and the role summary', async () => {
    const role = await createRole({ description: 'Reads things' })
    const res = await api.get(`/api/admin/roles/${role.id}/permissions`)
    assert.equal(res.statusCode, 200)
    assert.deepEqual(res.json(), {
      success: true,
      data: { permissions: [], role: { id: role.id, name: role.name, description: 'Reads things' } },
    })
  })

  it('permissions replace swaps the whole array and removes duplicates', async () => {
    const role = await createRole()
    const first = await api.put(`/api/admin/roles/${role.id}/permissions`, {
      permissions: ['items.read', 'items.update', 'items.read'],
    })
    assert.equal(first.statusCode, 200, first.body)
    assert.deepEqual(first.json().data.permissions, ['items.read', 'items.update'])
    const second = await api.put(`/api/admin/roles/${role.id}/permissions`, {
      permissions: ['reports.moderate', 'sponsor-ads.approve'],
    })
    assert.deepEqual(second.json().data.permissions, ['reports.moderate', 'sponsor-ads.approve'])
    const read = await api.get(`/api/admin/roles/${role.id}/permissions`)
    assert.deepEqual(read.json().data.permissions, ['reports.moderate', 'sponsor-ads.approve'])
    const cleared = await api.put(`/api/admin/roles/${role.id}/permissions`, { permissions: [] })
    assert.deepEqual(cleared.json().data.permissions, [])
  })

  it('the catalogue covers every admin area with read, create, update and delete', () => {
    const areas = [
      'clients',
      'users',
      'roles',
      'categories',
      'items',
      'tags',
      'companies',
      'comments',
      'collections',
      'featured-items',
      'sponsor-ads',
      'reports',
      'settings',
      'navigation',
      'notifications',
      'analytics',
      'crm',
      'geocode',
    ]
    for (const area of areas) {
      for (const action of ['read', 'create', 'update', 'delete']) {
        assert.ok(PERMISSIONS.includes(`${area}.${action}`), `${area}.${action}`)
      }
    }
    assert.ok(PERMISSIONS.every((permission) => /^[a-z-]+\.[a-z-]+$/.test(permission)))
  })

  it('active roles are public and list only active ones', async () => {
    const active = await createRole()
    const inactive = await createRole({ status: 'inactive' })
    const res = await api.get('/api/admin/roles/active', { cookie: null })
    assert.equal(res.statusCode, 200)
    const body = res.json()
    assert.deepEqual(Object.keys(body), ['roles'])
    const ids = body.roles.map((role: { id: string }) => role.id)
    assert.ok(ids.includes(active.id))
    assert.ok(!ids.includes(inactive.id))
    assert.ok(body.roles.every((role: { status: string }) => role.status === 'active'))
  })

  it('the permission catalogue names every permission a role may hold, by area, and each is accepted', async () => {
    const res = await api.get('/api/admin/roles/permissions')
    assert.equal(res.statusCode, 200, res.body)
    const areas: { area: string; actions: string[]; permissions: string[] }[] = res.json().data
    assert.deepEqual(
      areas.flatMap((entry) => entry.permissions),
      PERMISSIONS,
    )
    const items = areas.find((entry) => entry.area === 'items')
    assert.deepEqual(items?.actions, ['read', 'create', 'update', 'delete', 'review', 'publish'])
    const role = await createRole()
    const all = await api.put(`/api/admin/roles/${role.id}/permissions`, { permissions: [...PERMISSIONS] })
    assert.equal(all.statusCode, 200, all.body)
  })

  it('stats count roles by status and average their permissions', async () => {
    const before = (await api.get('/api/admin/roles/stats')).json().data
    const active = await createRole()
    await createRole({ status: 'inactive' })
    await api.put(`/api/admin/roles/${active.id}/permissions`, {
      permissions: ['items.read', 'tags.read'],
    })
    const res = await api.get('/api/admin/roles/stats')
    assert.equal(res.statusCode, 200)
    const body = res.json()
    assert.equal(body.success, true)
    assert.equal(body.data.total, before.total + 2)
    assert.equal(body.data.active, before.active + 1)
    assert.equal(body.data.inactive, before.inactive + 1)
    assert.equal(body.data.total, body.data.active + body.data.inactive)
    const rows = await h.databases.directory.db.select({ permissions: roles.permissions }).from(roles)
    const mean = rows.reduce((sum, row) => sum + row.permissions.length, 0) / rows.length
    assert.equal(body.data.averagePermissions, Math.round(mean * 100) / 100)
    assert.ok(body.data.averagePermissions > 0)
  })
})

describe('admin roles: errors', () => {
  const post = (payload: unknown) => api.post('/api/admin/roles', payload)

  it('name limits: 3 and 100 characters pass, 2 and 101 answer 400', async () => {
    const tag = suffix()
    assert.equal((await post({ name: `${tag}`.slice(0, 3), description: '' })).statusCode, 201)
    const hundred = `${tag} ${'n'.repeat(91)}`
    assert.equal(hundred.length, 100)
    assert.equal((await post({ name: hundred, description: '' })).statusCode, 201)
    const short = await post({ name: 'ab', description: '' })
    assert.equal(short.statusCode, 400)
    assert.equal(short.json().success, false)
    assert.equal(short.json().details[0].field, 'body.name')
    assert.equal((await post({ name: `${hundred}n`, description: '' })).statusCode, 400)
  })

  it('a name of three characters only with surrounding spaces answers 400', async () => {
    const res = await post({ name: '  ab  ', description: '' })
    assert.equal(res.statusCode, 400)
    assert.equal(res.json().details[0].field, 'body.name')
  })

  it('a name without letters or digits answers 400', async () => {
    assert.equal((await post({ name: '!!!???', description: '' })).statusCode, 400)
  })

  it('description limits: 500 characters pass, 501 answer 400', async () => {
    assert.equal((await post({ name: `Desc ${suffix()}`, description: 'd'.repeat(500) })).statusCode, 201)
    const res = await post({ name: `Desc ${suffix()}`, description: 'd'.repeat(501) })
    assert.equal(res.statusCode, 400)
    assert.equal(res.json().details[0].field, 'body.description')
  })

  it('missing name or description answers 400', async () => {
    assert.equal((await post({ description: 'x' })).statusCode, 400)
    assert.equal((await post({ name: `No desc ${suffix()}` })).statusCode, 400)
  })

  it('an unknown status answers 400', async () => {
    assert.equal(
      (await post({ name: `Bad ${suffix()}`, description: '', status: 'deleted' })).statusCode,
      400,
    )
  })

  it('a name taken in another case answers 409', async () => {
    const role = await createRole({ name: `Moderator ${suffix()}` })
    const res = await post({ name: role.name.toUpperCase(), description: '' })
    assert.equal(res.statusCode, 409)
    assert.equal(res.json().success, false)
  })

  it('a name that slugs to an existing id answers 409', async () => {
    const role = await createRole({ name: `Sales Team ${suffix()}` })
    const res = await post({ name: role.name.replace('Sales Team', 'Sales-Team!'), description: '' })
    assert.equal(res.statusCode, 409, res.body)
    assert.match(res.json().error, /id/)
  })

  it('the name of a soft-deleted role answers 409', async () => {
    const role = await createRole()
    assert.equal((await api.delete(`/api/admin/roles/${role.id}`)).statusCode, 200)
    assert.equal((await post({ name: role.name, description: '' })).statusCode, 409)
  })

  it('the name of a hard-deleted role can be used again', async () => {
    const role = await createRole()
    assert.equal((await api.delete(`/api/admin/roles/${role.id}?hard=true`)).statusCode, 200)
    assert.equal((await post({ name: role.name, description: '' })).statusCode, 201)
  })

  it(race('five concurrent creates of one name give one 201 and four 409'), async () => {
    const name = `Concurrent ${suffix()}`
    const answers = await Promise.all(Array.from({ length: 5 }, () => post({ name, description: '' })))
    const statuses = answers.map((res) => res.statusCode).sort()
    assert.deepEqual(statuses, [201, 409, 409, 409, 409])
  })

  it(race('five concurrent creates of one name in different cases give one 201'), async () => {
    const name = `Racing Role ${suffix()}`
    const variants = [name, name.toUpperCase(), name.toLowerCase(), `${name} `, ` ${name}`]
    const answers = await Promise.all(variants.map((variant) => post({ name: variant, description: '' })))
    assert.deepEqual(answers.map((res) => res.statusCode).sort(), [201, 409, 409, 409, 409])
  })

  it('renaming to a name another role holds answers 409', async () => {
    const first = await createRole()
    const second = await createRole()
    const res = await api.put(`/api/admin/roles/${second.id}`, { name: first.name.toLowerCase() })
    assert.equal(res.statusCode, 409)
  })

  it('update limits: name 2 and 101, description 501 answer 400', async () => {
    const role = await createRole()
    const url = `/api/admin/roles/${role.id}`
    assert.equal((await api.put(url, { name: 'ab' })).statusCode, 400)
    assert.equal((await api.put(url, { name: 'n'.repeat(101) })).statusCode, 400)
    assert.equal((await api.put(url, { description: 'd'.repeat(501) })).statusCode, 400)
    assert.equal((await api.put(url, { status: 'gone' })).statusCode, 400)
  })

  it('list paging: page 0, limit 0 and 101 answer 400; limit 1 and 100 pass', async () => {
    assert.equal((await api.get('/api/admin/roles?page=0')).statusCode, 400)
    assert.equal((await api.get('/api/admin/roles?limit=0')).statusCode, 400)
    assert.equal((await api.get('/api/admin/roles?limit=101')).statusCode, 400)
    assert.equal((await api.get('/api/admin/roles?limit=1')).json().roles.length, 1)
    assert.equal((await api.get('/api/admin/roles?limit=100')).statusCode, 200)
    assert.equal((await api.get('/api/admin/roles?page=abc')).statusCode, 400)
  })

  it('list: an unknown sortBy, sortOrder or status answers 400', async () => {
    const res = await api.get('/api/admin/roles?sortBy=permissions')
    assert.equal(res.statusCode, 400)
    assert.equal(res.json().details[0].field, 'query.sortBy')
    assert.equal((await api.get('/api/admin/roles?sortOrder=up')).statusCode, 400)
    assert.equal((await api.get('/api/admin/roles?status=deleted')).statusCode, 400)
  })

  it('unknown roles answer 404 on read, update, delete and permissions', async () => {
    const id = `missing-${suffix()}`
    for (const [method, url, payload] of [
      ['GET', `/api/admin/roles/${id}`],
      ['PUT', `/api/admin/roles/${id}`, { description: 'x' }],
      ['DELETE', `/api/admin/roles/${id}`],
      ['DELETE', `/api/admin/roles/${id}?hard=true`],
      ['GET', `/api/admin/roles/${id}/permissions`],
      ['PUT', `/api/admin/roles/${id}/permissions`, { permissions: ['items.read'] }],
    ] as const) {
      const res = await api.request(method, url, { body: payload })
      assert.equal(res.statusCode, 404, `${method} ${url}`)
      assert.equal(res.json().success, false)
    }
  })

  it('invalid permissions answer 400 listing them, and change nothing', async () => {
    const role = await createRole()
    await api.put(`/api/admin/roles/${role.id}/permissions`, { permissions: ['items.read'] })
    const res = await api.put(`/api/admin/roles/${role.id}/permissions`, {
      permissions: ['items.read', 'foo.bar', 'items.fly', 'foo.bar'],
    })
    assert.equal(res.statusCode, 400)
    const body = res.json()
    assert.equal(body.success, false)
    assert.equal(body.error, 'Invalid permissions: foo.bar, items.fly')
    assert.equal(body.details[0].field, 'body.permissions')
    assert.match(body.details[0].message, /foo\.bar/)
    const read = await api.get(`/api/admin/roles/${role.id}/permissions`)
    assert.deepEqual(read.json().data.permissions, ['items.read'])
  })

  it('permissions that are not an array of strings answer 400', async () => {
    const role = await createRole()
    const url = `/api/admin/roles/${role.id}/permissions`
    assert.equal((await api.put(url, {})).statusCode, 400)
    assert.equal((await api.put(url, { permissions: [{ name: 'items.read' }] })).statusCode, 400)
  })

  it('the seeded admin role cannot be deleted, deactivated or lose admin rights', async () => {
    assert.equal((await api.delete('/api/admin/roles/admin')).statusCode, 400)
    assert.equal((await api.delete('/api/admin/roles/admin?hard=true')).statusCode, 400)
    assert.equal((await api.put('/api/admin/roles/admin', { status: 'inactive' })).statusCode, 400)
    assert.equal((await api.put('/api/admin/roles/admin', { isAdmin: false })).statusCode, 400)
    const adminRole = (await api.get('/api/admin/roles/admin')).json().data
    assert.equal(adminRole.status, 'active')
    assert.equal(adminRole.isAdmin, true)
    assert.equal((await api.get('/api/admin/roles/stats')).statusCode, 200, 'the admin is still an admin')
  })

  it('the user role cannot be deleted for good: sign-up keeps working', async () => {
    const hard = await api.delete('/api/admin/roles/user?hard=true')
    assert.equal(hard.statusCode, 400)
    assert.equal(hard.json().code, 'USER_ROLE_PROTECTED')
    const registered = await h.app.inject({
      method: 'POST',
      url: '/api/auth/register',
      remoteAddress: randomAddress(),
      payload: { email: uniqueEmail(), password: 'a good password', name: 'Newcomer' },
    })
    assert.equal(registered.statusCode, 201, registered.body)
  })
})

describe('admin roles: security', () => {
  it('a non-admin cannot make a role admin through the API', async () => {
    const registered = await h.app.inject({
      method: 'POST',
      url: '/api/auth/register',
      remoteAddress: randomAddress(),
      payload: { email: uniqueEmail(), password: 'a good password', name: 'Climber' },
    })
    const res = await api.put(
      '/api/admin/roles/user',
      { isAdmin: true },
      { cookie: sessionCookie(registered) },
    )
    assert.equal(res.statusCode, 403)
    assert.equal((await api.get('/api/admin/roles/user')).json().data.isAdmin, false)
  })

  it('a cookie write from another origin is refused', async () => {
    const res = await h.app.inject({
      method: 'POST',
      url: '/api/admin/roles',
      payload: { name: `Cross ${suffix()}`, description: '' },
      headers: { origin: 'https://evil.example', cookie: admin },
    })
    assert.equal(res.statusCode, 403)
  })

  it('the active roles list needs no session and shows no more than the role fields', async () => {
    const res = await api.get('/api/admin/roles/active', { cookie: null })
    assert.equal(res.statusCode, 200)
    for (const role of res.json().roles) {
      assert.deepEqual(Object.keys(role).sort(), [
        'created_at',
        'description',
        'id',
        'isAdmin',
        'name',
        'permissions',
        'status',
        'updated_at',
      ])
    }
  })

  it('the OpenAPI document lists the roles routes with the session security', async () => {
    const spec = (await h.app.inject({ method: 'GET', url: '/openapi.json' })).json()
    const list = spec.paths['/api/admin/roles'].get
    assert.deepEqual(list.tags, ['roles'])
    assert.deepEqual(list.security, [{ sessionCookie: [] }])
    assert.equal(spec.paths['/api/admin/roles/active'].get.security, undefined)
    assert.ok(spec.paths['/api/admin/roles/{id}/permissions'].put)
  })
})
