import { HOUR_MS } from '../../lib/time.ts'
import { clip } from '../../lib/values.ts'
import type { NotificationCategory, NotificationType } from './tables.ts'

/** What a notification tells the user; the service adds whose it is. */
export interface Alert {
  type: NotificationType
  category: NotificationCategory
  title: string
  message: string
  actionUrl?: string | null
  actionLabel?: string | null
  isPersistent?: boolean
  deduplicationKey?: string | null
  expiresAt?: Date | null
}

/** How long an AI provider error stays listed: a later run may well succeed. */
export const AI_PROVIDER_ERROR_TTL_MS = 24 * HOUR_MS
/** How much of an outside system's error text a message quotes. */
const REASON_MAX_LENGTH = 300

const PROVIDER_NAMES: Record<string, string> = {
  openai: 'OpenAI',
  anthropic: 'Anthropic',
  openrouter: 'OpenRouter',
  google: 'Google',
  mistral: 'Mistral',
  github: 'GitHub',
  gitlab: 'GitLab',
  vercel: 'Vercel',
}
const providerName = (provider: string) => PROVIDER_NAMES[provider.toLowerCase()] ?? provider
const settingsOf = (provider: string) => `/settings/plugins/${encodeURIComponent(provider)}`
const workPath = (workId: string) => `/works/${encodeURIComponent(workId)}`

// Credentials an outside system may echo back in its error text (OpenAI quotes part of a rejected key).
const SECRET_TOKENS: readonly RegExp[] = [
  /\b(?:sk|pk|rk)-[A-Za-z0-9_*.-]{8,}/g,
  /\bsvc_live_[A-Za-z0-9]+/g,
  /\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{8,}/g,
  /\bgithub_pat_[A-Za-z0-9_]{8,}/g,
  /\bBearer\s+[^\s"']+/gi,
  // Any long run of key-like characters: an unknown provider's key, a signed URL's signature.
  /\b[A-Za-z0-9_-]{32,}\b/g,
]
const SECRET_ASSIGNMENT = /\b(api[_-]?key|token|secret|password)(["']?\s*[:=]\s*["']?)[^\s"',}]+/gi

/**
 * An outside system's reason, fit to show the user: credentials it might quote are replaced, whitespace
 * folded, and the text cut to a readable length.
 */
export function safeReason(reason: string): string {
  let text = reason.replace(/\s+/g, ' ').trim().replace(SECRET_ASSIGNMENT, '$1$2[redacted]')
  for (const pattern of SECRET_TOKENS) text = text.replace(pattern, '[redacted]')
  return clip(text, REASON_MAX_LENGTH) || 'no reason given'
}

/** Whether a provider's error says its credentials were refused: the user must act, not wait. */
const isCredentialError = (error: string) =>
  /\b(401|403)\b|unauthori[sz]ed|forbidden|invalid[ _-]?api[ _-]?key|incorrect api key|authentication|permission/i.test(
    error,
  )

/** The AI provider answered 402 or a quota error: a banner until the key is fixed or credits added. */
export function aiCreditsDepleted(details: { provider: string }): Alert {
  const name = providerName(details.provider)
  return {
    type: 'ERROR',
    category: 'ai_credits',
    title: `${name} credits are used up`,
    message:
      `${name} refused to generate because the account has no credits left or reached its quota. ` +
      'Add credits or use another API key, then generate again.',
    actionUrl: settingsOf(details.provider),
    actionLabel: 'Update API key',
    isPersistent: true,
    deduplicationKey: `ai-credits:${details.provider}`,
  }
}

/** The AI provider failed: an ERROR when it refused the credentials, a WARNING otherwise; 24 hours. */
export function aiProviderError(
  details: { provider: string; error: string; workId?: string },
  now: Date,
): Alert {
  const name = providerName(details.provider)
  const refused = isCredentialError(details.error)
  const reason = safeReason(details.error)
  return {
    type: refused ? 'ERROR' : 'WARNING',
    category: 'ai_credits',
    title: refused ? `${name} refused the API key` : `${name} could not answer`,
    message: refused
      ? `${name} refused the saved API key (${reason}). Update the key to generate again.`
      : `Generation failed because ${name} answered: ${reason}. The next run tries again.`,
    ...(refused || !details.workId
      ? { actionUrl: settingsOf(details.provider), actionLabel: 'Update API key' }
      : { actionUrl: workPath(details.workId), actionLabel: 'Open work' }),
    isPersistent: false,
    deduplicationKey: `ai-provider-error:${details.provider}`,
    expiresAt: new Date(now.getTime() + AI_PROVIDER_ERROR_TTL_MS),
  }
}

/**
 * The AI provider could not be reached (no connection, no answer in time, an address the server may not
 * call): a generation failure with its cause, not a credits problem; 24 hours.
 */
export function aiProviderUnreachable(
  details: { provider: string; error: string; workId?: string },
  now: Date,
): Alert {
  const name = providerName(details.provider)
  const reason = safeReason(details.error)
  return {
    type: 'WARNING',
    category: 'generation',
    title: `${name} could not be reached`,
    message:
      `Generation failed: ${reason.replace(/^[A-Z](?=[a-z])/, (first) => first.toLowerCase())}. ` +
      `Check ${name}’s address (its base URL) and this server’s network, then generate again.`,
    ...(details.workId
      ? { actionUrl: workPath(details.workId), actionLabel: 'Open work' }
      : { actionUrl: settingsOf(details.provider), actionLabel: 'Open settings' }),
    isPersistent: false,
    deduplicationKey: `ai-provider-unreachable:${details.provider}`,
    expiresAt: new Date(now.getTime() + AI_PROVIDER_ERROR_TTL_MS),
  }
}

/** Generation could not run because of the user's account (plan, limits, credentials). */
export function generationAccountError(details: { reason: string; workId?: string }): Alert {
  return {
    type: 'ERROR',
    category: 'generation',
    title: 'Generation stopped by an account problem',
    message: `Generation could not run: ${safeReason(details.reason)}. Fix it in your settings, then generate again.`,
    ...(details.workId
      ? { actionUrl: workPath(details.workId), actionLabel: 'Open work' }
      : { actionUrl: '/settings', actionLabel: 'Open settings' }),
    isPersistent: false,
  }
}

/** A work's scheduled generation was paused. */
export function schedulePaused(details: { workId: string; workName: string; reason: string }): Alert {
  return {
    type: 'WARNING',
    category: 'generation',
    title: `Scheduled generation of "${details.workName}" is paused`,
    message:
      `The schedule of "${details.workName}" was paused: ${safeReason(details.reason)}. ` +
      'Resume it from the work once the problem is fixed.',
    actionUrl: workPath(details.workId),
    actionLabel: 'Open work',
    isPersistent: false,
  }
}

/** The Git host rejected the user's token (github unless named): a banner until it is reconnected. */
export function gitAuthExpired(details: { provider?: string }): Alert {
  const provider = details.provider ?? 'github'
  const name = providerName(provider)
  return {
    type: 'ERROR',
    category: 'security',
    title: `${name} access has expired`,
    message:
      `${name} rejected the saved token, so deployments and repository updates cannot run. ` +
      `Reconnect ${name} to resume them.`,
    actionUrl: settingsOf(provider),
    actionLabel: `Reconnect ${name}`,
    isPersistent: true,
    deduplicationKey: `git-auth:${provider}`,
  }
}
