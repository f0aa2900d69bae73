import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import Fastify from 'fastify'
import { createSerializedAnswers, TEXT_ANSWER_MAX } from '../../src/http/serialized.ts'

/** A route answering the cached value of `?size=` (a string of that many characters), through the answers. */
async function appServing() {
  const app = Fastify()
  const answers = createSerializedAnswers()
  const cached = new Map<number, { text: string }>()
  let built = 0
  app.get<{ Querystring: { size: string } }>(
    '/value',
    { schema: { response: { 200: { type: 'object', properties: { data: { type: 'string' } } } } } },
    async (req, reply) => {
      const size = Number(req.query.size)
      let value = cached.get(size)
      if (!value) {
        value = { text: 'é'.repeat(1) + 'x'.repeat(size - 1) }
        cached.set(size, value)
      }
      return answers.send(reply, value, () => {
        built++
        return { data: value.text }
      })
    },
  )
  await app.ready()
  return { app, built: () => built }
}

describe('serialized answers', () => {
  for (const size of [100, TEXT_ANSWER_MAX * 2]) {
    it(`answer the route's JSON with its length, built once per cached value (${size} characters)`, async () => {
      const { app, built } = await appServing()
      try {
        const first = await app.inject({ method: 'GET', url: `/value?size=${size}` })
        const second = await app.inject({ method: 'GET', url: `/value?size=${size}` })
        for (const res of [first, second]) {
          assert.equal(res.statusCode, 200)
          assert.equal(res.headers['content-type'], 'application/json; charset=utf-8')
          assert.equal(res.json().data.length, size)
          assert.equal(Number(res.headers['content-length']), res.rawPayload.length)
          assert.ok(res.json().data.startsWith('é'))
        }
        assert.equal(second.body, first.body)
        assert.equal(built(), 1)
      } finally {
        await app.close()
      }
    })
  }
})
