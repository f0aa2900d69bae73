import type { FastifyReply, FastifyRequest } from 'fastify'
import { sha256Hex } from '../../lib/crypto.ts'

/** A rendered public document with what conditional requests are answered from. */
export interface Rendered {
  body: Buffer
  /** A strong ETag: a hash of the bytes, so every instance gives the same bytes the same tag. */
  etag: string
  /** When this instance rendered it after the last change it heard of, to the second (HTTP dates). */
  lastModified: Date
  /** The same as the header writes it, made once. */
  lastModifiedHeader: string
}

/** Feeds and llms.txt may be kept by browsers and shared caches a minute, then asked again with the ETag. */
export const PUBLIC_DOCUMENT_CACHE_CONTROL = 'public, max-age=60'

export function rendered(text: string, nowMs: number): Rendered {
  const body = Buffer.from(text)
  const lastModified = new Date(Math.floor(nowMs / 1000) * 1000)
  return {
    body,
    etag: `"${sha256Hex(text).slice(0, 32)}"`,
    lastModified,
    lastModifiedHeader: lastModified.toUTCString(),
  }
}

const tagsOf = (header: string) => header.split(',').map((tag) => tag.trim().replace(/^W\//, ''))

/**
 * Whether the client already holds this document (RFC 9110, 13.1): `If-None-Match` decides when sent (a
 * weak comparison, `*` included); otherwise `If-Modified-Since`, when it is a date.
 */
export function notModified(req: FastifyRequest, document: Rendered): boolean {
  const ifNoneMatch = req.headers['if-none-match']
  if (ifNoneMatch !== undefined) {
    const tags = tagsOf(ifNoneMatch)
    return tags.includes('*') || tags.includes(document.etag)
  }
  const ifModifiedSince = req.headers['if-modified-since']
  if (ifModifiedSince === undefined) return false
  const since = Date.parse(ifModifiedSince)
  return !Number.isNaN(since) && document.lastModified.getTime() <= since
}

/** Sends `document` as `type`, or a bodiless 304 when the client holds it already. */
export function sendDocument(req: FastifyRequest, reply: FastifyReply, document: Rendered, type: string) {
  reply
    .header('etag', document.etag)
    .header('last-modified', document.lastModifiedHeader)
    .header('cache-control', PUBLIC_DOCUMENT_CACHE_CONTROL)
  if (notModified(req, document)) return reply.code(304).send()
  return reply.type(`${type}; charset=utf-8`).send(document.body)
}
