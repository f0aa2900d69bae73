/**
 * Form controls, each a plain HTML control with its visible label, its hint and its error tied to it
 * (`aria-invalid`, `aria-describedby`), so a person with a screen reader and a test both find it by label.
 */
import type { ComponentChildren, TextareaHTMLAttributes } from 'preact'
import { useId } from 'preact/hooks'

interface FieldProps {
  label: string
  error?: string | undefined
  hint?: string
  children: (ids: { id: string; describedBy: string | undefined; invalid: boolean }) => ComponentChildren
}

/** A label, a control, and under it its hint and its error, tied to the control. */
export function Field({ label, error, hint, children }: FieldProps) {
  const id = useId()
  const hintId = hint ? `${id}-hint` : undefined
  const errorId = error ? `${id}-error` : undefined
  const describedBy = [hintId, errorId].filter(Boolean).join(' ') || undefined
  return (
    <div class={`field${error ? ' field-invalid' : ''}`}>
      <label for={id}>{label}</label>
      {children({ id, describedBy, invalid: Boolean(error) })}
      {hint && (
        <p class="field-hint" id={hintId}>
          {hint}
        </p>
      )}
      {error && (
        <p class="field-error" id={errorId}>
          {error}
        </p>
      )}
    </div>
  )
}

/** What the consoles set on a text input besides its value (Preact's own types are a union per type). */
export interface InputOptions {
  type?: 'text' | 'email' | 'password' | 'url' | 'number' | 'search' | 'date' | 'datetime-local' | 'tel'
  placeholder?: string
  autocomplete?: string
  required?: boolean
  autofocus?: boolean
  disabled?: boolean
  readOnly?: boolean
  maxLength?: number
  min?: string | number
  max?: string | number
  step?: string | number
  inputMode?: 'decimal' | 'numeric' | 'text' | 'email' | 'url' | 'search' | 'tel'
  name?: string
}

type InputProps = InputOptions & {
  label: string
  value: string
  onValue: (value: string) => void
  error?: string | undefined
  hint?: string
}

export function TextField({ label, value, onValue, error, hint, type = 'text', ...rest }: InputProps) {
  return (
    <Field label={label} error={error} {...(hint ? { hint } : {})}>
      {({ id, describedBy, invalid }) => (
        <input
          {...rest}
          // Preact types an input per `type`; every type this field takes accepts the same attributes.
          type={type as 'text'}
          id={id}
          value={value}
          aria-invalid={invalid ? 'true' : undefined}
          aria-describedby={describedBy}
          onInput={(event) => onValue(event.currentTarget.value)}
        />
      )}
    </Field>
  )
}

type AreaProps = Omit<TextareaHTMLAttributes<HTMLTextAreaElement>, 'value' | 'onInput' | 'label'> & {
  label: string
  value: string
  onValue: (value: string) => void
  error?: string | undefined
  hint?: string
}

export function TextArea({ label, value, onValue, error, hint, ...rest }: AreaProps) {
  return (
    <Field label={label} error={error} {...(hint ? { hint } : {})}>
      {({ id, describedBy, invalid }) => (
        <textarea
          rows={4}
          {...rest}
          id={id}
          value={value}
          aria-invalid={invalid ? 'true' : undefined}
          aria-describedby={describedBy}
          onInput={(event) => onValue(event.currentTarget.value)}
        />
      )}
    </Field>
  )
}

export interface Option {
  value: string
  label: string
}

type SelectProps = {
  disabled?: boolean
  required?: boolean
  name?: string
  label: string
  value: string
  options: readonly Option[]
  onValue: (value: string) => void
  error?: string | undefined
  hint?: string
}

export function Select({ label, value, options, onValue, error, hint, ...rest }: SelectProps) {
  return (
    <Field label={label} error={error} {...(hint ? { hint } : {})}>
      {({ id, describedBy, invalid }) => (
        <select
          {...rest}
          id={id}
          value={value}
          aria-invalid={invalid ? 'true' : undefined}
          aria-describedby={describedBy}
          onChange={(event) => onValue(event.currentTarget.value)}
        >
          {options.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
      )}
    </Field>
  )
}

export function Checkbox({
  label,
  checked,
  onValue,
  ...rest
}: {
  disabled?: boolean
  name?: string
  label: string
  checked: boolean
  onValue: (checked: boolean) => void
}) {
  const id = useId()
  return (
    <div class="checkbox">
      <input
        type="checkbox"
        {...rest}
        id={id}
        checked={checked}
        onChange={(event) => onValue(event.currentTarget.checked)}
      />
      <label for={id}>{label}</label>
    </div>
  )
}
