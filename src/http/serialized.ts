import type { FastifyReply } from 'fastify'

/**
 * The bytes of answers built from cached values, kept as long as the value they were built from: a route
 * that serves the same cached object again and again serializes and encodes it once, not per request.
 * Keys are the cached objects themselves (weakly held), so an answer goes when its cache entry does.
 */
export function createSerializedAnswers() {
  const answers = new WeakMap<object, Buffer>()
  return {
    /** Sends the answer `build` makes of `source` (serialized by the route's 200 schema) as JSON. */
    send(reply: FastifyReply, source: object, build: () => unknown): FastifyReply {
      let body = answers.get(source)
      if (!body) {
        const serialized = reply.serialize(build())
        body =
          typeof serialized === 'string' ? Buffer.from(serialized) : Buffer.from(serialized as ArrayBuffer)
        answers.set(source, body)
      }
      return reply.type('application/json; charset=utf-8').send(body)
    },
  }
}
