import assert from 'node:assert/strict'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import type { PGlite } from '@electric-sql/pglite'
import { startEmbeddedUpkeep, upkeepOnce } from '../../src/db/embedded-upkeep.ts'
import { extractCluster, openPglite } from '../../src/db/pglite.ts'
import { createLogger } from '../../src/lib/logger.ts'

const folders: string[] = []
after(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true })
})

function tempFolder(): string {
  const folder = mkdtempSync(join(tmpdir(), 'curio-pglite-'))
  folders.push(folder)
  return folder
}

/** A ustar archive of the given entries, as PGlite's dump writes one. */
function tar(entries: { name: string; data?: string; type?: '0' | '5' }[]): Buffer {
  const blocks: Buffer[] = []
  for (const { name, data = '', type = '0' } of entries) {
    const header = Buffer.alloc(512)
    header.write(name, 0, 100, 'latin1')
    header.write('0000644\0', 100, 'latin1')
    header.write(`${Buffer.byteLength(data).toString(8).padStart(11, '0')}\0`, 124, 'latin1')
    header.write(type, 156, 'latin1')
    header.write('ustar\0', 257, 'latin1')
    blocks.push(header)
    if (type === '0' && data) {
      const body = Buffer.alloc(Math.ceil(Buffer.byteLength(data) / 512) * 512)
      body.write(data, 'latin1')
      blocks.push(body)
    }
  }
  blocks.push(Buffer.alloc(1024))
  return Buffer.concat(blocks)
}

const rowsOf = async <T>(pglite: PGlite, text: string) => (await pglite.query<T>(text)).rows

describe('a new embedded data folder', () => {
  it('is written from the migrated cluster, whole, and opens again as the same database', async () => {
    const dir = join(tempFolder(), 'pglite')
    const first = await openPglite(dir)
    try {
      assert.ok(existsSync(join(dir, 'PG_VERSION')))
      assert.deepEqual(
        readdirSync(join(dir, '..')).filter((name) => name.includes('partial')),
        [],
        'no partial folder is left beside it',
      )
      // The migrations are in it already, and one WAL segment is 1 MB.
      const [tables] = await rowsOf<{ count: number }>(
        first,
        `select count(*)::int as count from information_schema.tables where table_schema = 'directory'`,
      )
      assert.ok((tables?.count ?? 0) > 10, `directory tables: ${tables?.count}`)
      const [wal] = await rowsOf<{ wal_segment_size: string }>(first, 'show wal_segment_size')
      assert.equal(wal?.wal_segment_size, '1MB')
      await first.exec(`create table public.kept (note text); insert into public.kept values ('still here')`)
    } finally {
      await first.close()
    }
    const again = await openPglite(dir)
    try {
      assert.deepEqual(await rowsOf(again, 'select note from public.kept'), [{ note: 'still here' }])
    } finally {
      await again.close()
    }
  })

  it('a folder that holds something other than a cluster is not wiped', async () => {
    const dir = join(tempFolder(), 'pglite')
    mkdirSync(dir)
    writeFileSync(join(dir, 'notes.txt'), 'mine')
    await openPglite(dir)
      .then((pglite) => pglite.close())
      .catch(() => {})
    assert.equal(readFileSync(join(dir, 'notes.txt'), 'utf8'), 'mine')
  })

  it('a cluster file with an entry outside its folder is refused and leaves nothing behind', () => {
    const parent = tempFolder()
    const dir = join(parent, 'pglite')
    assert.throws(
      () =>
        extractCluster(
          tar([
            { name: 'PG_VERSION', data: '17\n' },
            { name: '../escaped', data: 'x' },
          ]),
          dir,
        ),
      /outside its folder/,
    )
    assert.deepEqual(readdirSync(parent), [])
  })

  it('a cluster file is written file by file, folders and contents as they were', () => {
    const dir = join(tempFolder(), 'pglite')
    extractCluster(
      tar([
        { name: 'base/', type: '5' },
        { name: 'base/1/', type: '5' },
        { name: 'base/1/1255', data: 'a'.repeat(700) },
        { name: 'PG_VERSION', data: '17\n' },
      ]),
      dir,
    )
    assert.equal(readFileSync(join(dir, 'PG_VERSION'), 'utf8'), '17\n')
    assert.equal(readFileSync(join(dir, 'base/1/1255'), 'utf8'), 'a'.repeat(700))
  })
})

describe('embedded database upkeep', () => {
  /** Writes and deletes rows, then makes the statistics of it visible at once. */
  async function churn(pglite: PGlite, rounds: number) {
    for (let round = 0; round < rounds; round++) {
      await pglite.exec(
        `insert into public.churn select g, repeat('x', 200) from generate_series(1, 50000) g;
         delete from public.churn where id % 10 <> 0;`,
      )
    }
    await pglite.query('select pg_stat_force_next_flush()')
    await pglite.query('select 1')
  }

  const walMb = async (pglite: PGlite) =>
    (await rowsOf<{ mb: number }>(pglite, 'select (sum(size) / 1048576)::int as mb from pg_ls_waldir()'))[0]
      ?.mb ?? 0

  it('vacuums tables with dead rows, analyses changed ones and checkpoints, which bounds the WAL', async () => {
    const pglite = await openPglite(undefined)
    try {
      await pglite.exec(`create table public.churn (id int, body text);
                         create table public.grown (id int); create table public.still (id int)`)
      await pglite.exec(`insert into public.grown select generate_series(1, 500)`)
      await churn(pglite, 5)
      const before = await walMb(pglite)
      // Nothing checkpoints on its own in single-user mode: the WAL holds everything written.
      assert.ok(before > 70, `WAL before upkeep: ${before} MB`)

      const pass = await upkeepOnce(pglite)
      assert.deepEqual(pass.vacuumed, ['public.churn'])
      assert.deepEqual(pass.analyzed, ['public.grown'])
      assert.equal(pass.checkpointed, true)
      assert.ok(pass.walBytes > 16 * 1024 * 1024)

      const [churned] = await rowsOf<{ n_dead_tup: number; last_vacuum: Date | null }>(
        pglite,
        `select n_dead_tup::int, last_vacuum from pg_stat_user_tables where relname = 'churn'`,
      )
      assert.equal(churned?.n_dead_tup, 0)
      assert.ok(churned?.last_vacuum)
      const after = await walMb(pglite)
      assert.ok(after <= 66, `WAL after upkeep: ${after} MB (max_wal_size is 64 MB)`)

      // A second pass finds nothing to do.
      const second = await upkeepOnce(pglite)
      assert.deepEqual([second.vacuumed, second.analyzed, second.checkpointed], [[], [], false])
    } finally {
      await pglite.close()
    }
  })

  it('runs by itself on its interval until stopped', async () => {
    const pglite = await openPglite(undefined)
    const upkeep = startEmbeddedUpkeep(pglite, createLogger('silent'), { intervalMs: 20 })
    try {
      await pglite.exec('create table public.churn (id int, body text)')
      await churn(pglite, 1)
      const deadline = Date.now() + 20_000
      for (;;) {
        const [row] = await rowsOf<{ last_vacuum: Date | null }>(
          pglite,
          `select last_vacuum from pg_stat_user_tables where relname = 'churn'`,
        )
        if (row?.last_vacuum) break
        assert.ok(Date.now() < deadline, 'the table was never vacuumed')
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
    } finally {
      await upkeep.stop()
      await pglite.close()
    }
  })
})
