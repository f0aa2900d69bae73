import { errors, jwtVerify, SignJWT } from 'jose'
import type { Clock } from '../../lib/clock.ts'

export const ACCESS_TOKEN_TTL_SECONDS = 15 * 60
const ISSUER = 'curio-platform'
const AUDIENCE = 'curio-platform'

export interface AccessTokenClaims {
  userId: string
}

export interface AccessTokens {
  sign(userId: string): Promise<string>
  /** The claims of a valid token, or null for a malformed, tampered, expired or foreign one. */
  verify(token: string): Promise<AccessTokenClaims | null>
}

export function createAccessTokens({ secret, clock }: { secret: string; clock: Clock }): AccessTokens {
  const key = new TextEncoder().encode(secret)
  return {
    async sign(userId) {
      const issuedAt = Math.floor(clock.nowMs() / 1000)
      return new SignJWT({ typ: 'access' })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setSubject(userId)
        .setIssuer(ISSUER)
        .setAudience(AUDIENCE)
        .setIssuedAt(issuedAt)
        .setExpirationTime(issuedAt + ACCESS_TOKEN_TTL_SECONDS)
        .sign(key)
    },
    async verify(token) {
      try {
        const { payload } = await jwtVerify(token, key, {
          algorithms: ['HS256'],
          issuer: ISSUER,
          audience: AUDIENCE,
          currentDate: clock.now(),
          requiredClaims: ['sub', 'exp', 'iat'],
        })
        if (payload.typ !== 'access' || typeof payload.sub !== 'string') return null
        return { userId: payload.sub }
      } catch (error) {
        if (error instanceof errors.JOSEError || error instanceof TypeError) return null
        throw error
      }
    },
  }
}
