/**
 * Whether an email or username is free, asked of the API while the user form is typed in, so a taken one
 * is named next to its field before the form is sent.
 */
import { useEffect, useState } from 'preact/hooks'
import { unwrap } from '../../shared/api.ts'
import { api } from '../api.ts'

/**
 * Whether another user holds `value`, asked once the user stops typing: the message to show next to the
 * field, or undefined while it is free, unchecked or not well formed (the form's own checks say why).
 */
export function useTaken(
  kind: 'email' | 'username',
  value: string,
  wellFormed: (value: string) => boolean,
  original: string | undefined,
  excludeId: string | undefined,
): string | undefined {
  const [taken, setTaken] = useState<string | null>(null)
  const trimmed = value.trim()
  useEffect(() => {
    if (!wellFormed(trimmed) || trimmed.toLowerCase() === original?.toLowerCase()) return
    const controller = new AbortController()
    const timer = window.setTimeout(async () => {
      try {
        const body = { ...(excludeId ? { excludeId } : {}) }
        const answer =
          kind === 'email'
            ? await unwrap(
                api.POST('/api/admin/users/check-email', {
                  signal: controller.signal,
                  body: { ...body, email: trimmed },
                }),
              )
            : await unwrap(
                api.POST('/api/admin/users/check-username', {
                  signal: controller.signal,
                  body: { ...body, username: trimmed },
                }),
              )
        setTaken(answer.available ? null : trimmed)
      } catch {
        // A failed check says nothing: the API checks again when the form is sent.
      }
    }, 350)
    return () => {
      window.clearTimeout(timer)
      controller.abort()
    }
  }, [kind, trimmed, original, excludeId])
  if (taken === null || taken !== trimmed) return undefined
  return kind === 'email' ? 'This email is already taken by another user.' : 'This username is already taken.'
}
