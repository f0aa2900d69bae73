/**
 * The clients list's advanced search: criteria on the email domain, company, location, industry, number of
 * submissions and what a profile has, in a disclosure under the filters, applied together and kept in the
 * query string under their API names.
 */
import { useState } from 'preact/hooks'
import { Button, type Option, Select, TextField } from '../../shared/ui.tsx'
import { defined } from './clients-params.ts'

/** The advanced search's criteria, by their query-string (and API) names. */
const ADVANCED_TEXT = [
  { key: 'emailDomain', label: 'Email domain', hint: 'The part after @, e.g. example.com' },
  { key: 'companySearch', label: 'Company contains' },
  { key: 'locationSearch', label: 'Location contains' },
  { key: 'industrySearch', label: 'Industry contains' },
] as const
const ADVANCED_NUMBERS = [
  { key: 'minSubmissions', label: 'At least this many submissions' },
  { key: 'maxSubmissions', label: 'At most this many submissions' },
] as const
const ADVANCED_FLAGS = [
  { key: 'emailVerified', label: 'Email verified' },
  { key: 'twoFactorEnabled', label: 'Two-factor sign-in' },
  { key: 'hasAvatar', label: 'Has an avatar' },
  { key: 'hasWebsite', label: 'Has a website' },
  { key: 'hasPhone', label: 'Has a phone number' },
] as const
export const ADVANCED_KEYS = [
  ...ADVANCED_TEXT.map((f) => f.key),
  ...ADVANCED_NUMBERS.map((f) => f.key),
  ...ADVANCED_FLAGS.map((f) => f.key),
]
export type AdvancedKey = (typeof ADVANCED_KEYS)[number]

const YES_NO: Option[] = [
  { value: '', label: 'Either' },
  { value: 'true', label: 'Yes' },
  { value: 'false', label: 'No' },
]

const flag = (value: string | null) => (value === 'true' ? true : value === 'false' ? false : undefined)
const count = (value: string | null) =>
  value !== null && /^\d+$/.test(value) ? Number.parseInt(value, 10) : undefined

/** The criteria as the query string holds them (`''` for one not in use). */
export function readAdvanced(query: URLSearchParams): Record<AdvancedKey, string> {
  return Object.fromEntries(ADVANCED_KEYS.map((key) => [key, query.get(key) ?? ''])) as Record<
    AdvancedKey,
    string
  >
}

/** The criteria in use as `/api/admin/clients/advanced-search` takes them: numbers and flags as such. */
export function advancedParams(advanced: Record<AdvancedKey, string>) {
  return defined({
    emailDomain: advanced.emailDomain || undefined,
    companySearch: advanced.companySearch || undefined,
    locationSearch: advanced.locationSearch || undefined,
    industrySearch: advanced.industrySearch || undefined,
    minSubmissions: count(advanced.minSubmissions),
    maxSubmissions: count(advanced.maxSubmissions),
    emailVerified: flag(advanced.emailVerified),
    twoFactorEnabled: flag(advanced.twoFactorEnabled),
    hasAvatar: flag(advanced.hasAvatar),
    hasWebsite: flag(advanced.hasWebsite),
    hasPhone: flag(advanced.hasPhone),
  })
}

/**
 * The advanced criteria, open while any is in use. They are edited here and applied together, so the
 * list does not reload on every keystroke; applied, they live in the query string like every filter.
 */
export function AdvancedSearch({
  values,
  errors,
  onApply,
}: {
  values: Record<AdvancedKey, string>
  errors: Record<string, string>
  onApply: (values: Record<AdvancedKey, string>) => void
}) {
  const [form, setForm] = useState(values)
  const inUse = ADVANCED_KEYS.filter((key) => values[key] !== '').length
  const set = (key: AdvancedKey) => (value: string) => setForm((current) => ({ ...current, [key]: value }))
  const empty = Object.fromEntries(ADVANCED_KEYS.map((key) => [key, ''])) as Record<AdvancedKey, string>
  return (
    <details class="card advanced-search" open={inUse > 0}>
      <summary>Advanced search{inUse > 0 ? ` (${inUse} in use)` : ''}</summary>
      <form
        aria-label="Advanced search"
        noValidate
        onSubmit={(event) => {
          event.preventDefault()
          onApply(
            Object.fromEntries(ADVANCED_KEYS.map((key) => [key, form[key].trim()])) as Record<
              AdvancedKey,
              string
            >,
          )
        }}
      >
        <div class="grid-3">
          {ADVANCED_TEXT.map((field) => (
            <TextField
              key={field.key}
              label={field.label}
              value={form[field.key]}
              onValue={set(field.key)}
              error={errors[field.key]}
              maxLength={100}
              {...('hint' in field ? { hint: field.hint } : {})}
            />
          ))}
          {ADVANCED_NUMBERS.map((field) => (
            <TextField
              key={field.key}
              label={field.label}
              type="number"
              min={0}
              inputMode="numeric"
              value={form[field.key]}
              onValue={set(field.key)}
              error={errors[field.key]}
            />
          ))}
          {ADVANCED_FLAGS.map((field) => (
            <Select
              key={field.key}
              label={field.label}
              value={form[field.key]}
              onValue={set(field.key)}
              error={errors[field.key]}
              options={YES_NO}
            />
          ))}
        </div>
        <div class="actions">
          <Button kind="primary" type="submit">
            Apply advanced search
          </Button>
          {inUse > 0 && (
            <Button
              onClick={() => {
                setForm(empty)
                onApply(empty)
              }}
            >
              Clear advanced search
            </Button>
          )}
        </div>
      </form>
    </details>
  )
}
