import type { FastifyReply } from 'fastify'

/**
 * Answers up to this many characters go out as text: Node writes the text with the headers in one
 * write, where bytes take a gathered write of the two (a 2.9 KB featured shelf: about 30 µs of CPU per
 * request rather than 37–40). Larger ones go as bytes: encoding them again for every request costs more
 * than the gathered write saves (a 16 KB page of items: 47 µs as bytes, 50 as text). bench/README.md,
 * HTTP overhead.
 */
export const TEXT_ANSWER_MAX = 8 * 1024

/**
 * The serialized answers built from cached values, kept as long as the value they were built from: a route
 * that serves the same cached object again and again serializes it once, not per request. Keys are the
 * cached objects themselves (weakly held), so an answer goes when its cache entry does.
 */
export function createSerializedAnswers() {
  const answers = new WeakMap<object, string | Buffer>()
  return {
    /** Sends the answer `build` makes of `source` (serialized by the route's 200 schema) as JSON. */
    send(reply: FastifyReply, source: object, build: () => unknown): FastifyReply {
      let body = answers.get(source)
      if (body === undefined) {
        const serialized = reply.serialize(build())
        const text =
          typeof serialized === 'string' ? serialized : Buffer.from(serialized as ArrayBuffer).toString()
        body = text.length <= TEXT_ANSWER_MAX ? text : Buffer.from(text)
        answers.set(source, body)
      }
      return reply.type('application/json; charset=utf-8').send(body)
    },
  }
}
