import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { loadOnce } from '../../src/lib/load-once.ts'

describe('loadOnce', () => {
  it('loads nothing until asked', () => {
    let loads = 0
    loadOnce(async () => ++loads)
    assert.equal(loads, 0)
  })

  it('loads once and answers every later call with the same value', async () => {
    let loads = 0
    const load = loadOnce(async () => ({ load: ++loads }))
    const first = await load()
    assert.equal(await load(), first)
    assert.equal(loads, 1)
  })

  it('shares one load between concurrent first calls', async () => {
    let loads = 0
    const load = loadOnce(async () => {
      loads++
      await new Promise((resolve) => setTimeout(resolve, 10))
      return 'sdk'
    })
    assert.deepEqual(await Promise.all([load(), load(), load()]), ['sdk', 'sdk', 'sdk'])
    assert.equal(loads, 1)
  })

  it('rejects a failed load and tries again at the next call', async () => {
    let loads = 0
    const load = loadOnce(async () => {
      if (++loads === 1) throw new Error('not installed')
      return 'sdk'
    })
    await assert.rejects(load(), /not installed/)
    assert.equal(await load(), 'sdk')
    assert.equal(await load(), 'sdk')
    assert.equal(loads, 2)
  })

  it('answers a load that throws before its promise as a rejection', async () => {
    const load = loadOnce<string>(() => {
      throw new Error('synchronous failure')
    })
    await assert.rejects(load(), /synchronous failure/)
  })
})
