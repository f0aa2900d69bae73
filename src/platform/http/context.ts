import type { FastifyRequest } from 'fastify'
import type { EventContext } from '../events.ts'

/** Where a request came from, for the events and activity rows that record it. */
export const contextOf = (req: FastifyRequest): EventContext => ({
  ipAddress: req.ip,
  userAgent: req.headers['user-agent'],
})
