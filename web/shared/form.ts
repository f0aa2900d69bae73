/**
 * A form's submission: busy while it runs (a second submit is ignored), and on failure the error kept
 * with each failing field's message by name, so the form shows them next to their inputs and keeps
 * everything the user typed.
 */
import { useState } from 'preact/hooks'
import { ApiError, messageOf } from './api.ts'

export interface Submission {
  busy: boolean
  /** The message of a failure that is not about one field (or of a 400 whose fields are not on the form). */
  error: string | null
  fields: Record<string, string>
  submit: (event?: Event) => Promise<void>
  /** Forgets the last failure (e.g. when the dialog holding the form closes). */
  reset: () => void
}

/**
 * `shown` lists the field names the form shows; a failing field it does not show is named in the message, so
 * no error is ever swallowed.
 */
export function useSubmit(action: () => Promise<unknown>, shown?: readonly string[]): Submission {
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | null>(null)
  const [fields, setFields] = useState<Record<string, string>>({})

  const submit = async (event?: Event) => {
    event?.preventDefault()
    if (busy) return
    setBusy(true)
    setError(null)
    setFields({})
    try {
      await action()
    } catch (thrown) {
      if (thrown instanceof ApiError && thrown.details.length > 0) {
        const onForm: Record<string, string> = {}
        const elsewhere: string[] = []
        for (const [name, message] of Object.entries(thrown.fieldErrors())) {
          // `location.latitude` belongs to a form field named `location.latitude` or `location`.
          const field = shown ? shown.find((s) => name === s || name.startsWith(`${s}.`)) : name
          if (field === undefined) elsewhere.push(`${name} ${message}`)
          else onForm[field] ??= message
        }
        setFields(onForm)
        setError(
          elsewhere.length > 0
            ? `${thrown.message}: ${elsewhere.join('; ')}`
            : Object.keys(onForm).length > 0
              ? 'Some fields need attention: see the messages next to them.'
              : thrown.message,
        )
      } else {
        setError(messageOf(thrown))
      }
    } finally {
      setBusy(false)
    }
  }

  return {
    busy,
    error,
    fields,
    submit,
    reset: () => {
      setError(null)
      setFields({})
    },
  }
}
