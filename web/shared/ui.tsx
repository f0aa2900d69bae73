/**
 * The consoles' building blocks. Each is a plain HTML control with its label, role and state set the way a
 * person with a screen reader and a test both find it: fields are labelled and carry their error
 * (`aria-invalid`, `aria-describedby`), buttons say what they do and are disabled while busy, dialogs
 * are native `<dialog>`s (focus moves in and back, Escape closes), messages are live regions.
 */
import type { ButtonHTMLAttributes, ComponentChildren, TextareaHTMLAttributes } from 'preact'
import { createContext } from 'preact'
import { useContext, useEffect, useId, useRef, useState } from 'preact/hooks'
import { messageOf } from './api.ts'

type ButtonProps = Omit<ButtonHTMLAttributes<HTMLButtonElement>, 'onClick'> & {
  kind?: 'primary' | 'secondary' | 'danger' | 'link'
  /** While true the button is disabled and says it is working. */
  busy?: boolean
  /** An async action: the button is busy until it settles, so it cannot be sent twice. */
  onClick?: (event: MouseEvent) => unknown
}

export function Button({
  kind = 'secondary',
  busy,
  onClick,
  disabled,
  children,
  class: cls,
  ...rest
}: ButtonProps) {
  const [running, setRunning] = useState(false)
  const working = busy || running
  return (
    <button
      type="button"
      {...rest}
      class={`button button-${kind}${cls ? ` ${cls}` : ''}`}
      disabled={disabled || working}
      aria-busy={working ? 'true' : undefined}
      onClick={async (event) => {
        if (!onClick || working) return
        const result = onClick(event)
        if (result instanceof Promise) {
          setRunning(true)
          try {
            await result
          } finally {
            setRunning(false)
          }
        }
      }}
    >
      {children}
    </button>
  )
}

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

/** A message in the page: errors are alerts (read out at once), the rest polite status. */
export function Notice({
  kind = 'info',
  children,
}: {
  kind?: 'info' | 'error' | 'success'
  children: ComponentChildren
}) {
  return (
    <div class={`notice notice-${kind}`} role={kind === 'error' ? 'alert' : 'status'}>
      {children}
    </div>
  )
}

/** A modal dialog on the native `<dialog>`: focus moves into it and back, Escape closes it. */
export function Dialog({
  title,
  open,
  onClose,
  children,
  wide,
}: {
  title: string
  open: boolean
  onClose: () => void
  children: ComponentChildren
  wide?: boolean
}) {
  const ref = useRef<HTMLDialogElement>(null)
  const titleId = useId()
  useEffect(() => {
    const dialog = ref.current
    if (!dialog) return
    if (open && !dialog.open) dialog.showModal()
    if (!open && dialog.open) dialog.close()
  }, [open])
  return (
    <dialog
      ref={ref}
      class={`dialog${wide ? ' dialog-wide' : ''}`}
      aria-labelledby={titleId}
      onClose={() => open && onClose()}
      onCancel={(event) => {
        event.preventDefault()
        onClose()
      }}
    >
      {open && (
        <>
          <header class="dialog-header">
            <h2 id={titleId}>{title}</h2>
            <button
              type="button"
              class="button button-link dialog-close"
              aria-label="Close"
              onClick={onClose}
            >
              ×
            </button>
          </header>
          <div class="dialog-body">{children}</div>
        </>
      )}
    </dialog>
  )
}

interface ConfirmRequest {
  title: string
  message: ComponentChildren
  confirmLabel: string
  danger?: boolean
  resolve: (confirmed: boolean) => void
}

const ConfirmContext = createContext<(request: Omit<ConfirmRequest, 'resolve'>) => Promise<boolean>>(
  async () => false,
)

/** Holds the one confirmation dialog of the page; `useConfirm()` asks through it. */
export function ConfirmProvider({ children }: { children: ComponentChildren }) {
  const [request, setRequest] = useState<ConfirmRequest | null>(null)
  const ask = (asked: Omit<ConfirmRequest, 'resolve'>) =>
    new Promise<boolean>((resolve) => setRequest({ ...asked, resolve }))
  const answer = (confirmed: boolean) => {
    request?.resolve(confirmed)
    setRequest(null)
  }
  return (
    <ConfirmContext.Provider value={ask}>
      {children}
      <Dialog title={request?.title ?? ''} open={request !== null} onClose={() => answer(false)}>
        <div class="confirm-message">{request?.message}</div>
        <div class="actions">
          <Button kind={request?.danger ? 'danger' : 'primary'} onClick={() => answer(true)} autofocus>
            {request?.confirmLabel}
          </Button>
          <Button onClick={() => answer(false)}>Cancel</Button>
        </div>
      </Dialog>
    </ConfirmContext.Provider>
  )
}

/** Asks the user to confirm; resolves true on the confirming button, false on Cancel or Escape. */
export function useConfirm() {
  return useContext(ConfirmContext)
}

interface Toast {
  id: number
  kind: 'success' | 'error'
  text: string
}

const ToastContext = createContext<(kind: Toast['kind'], text: string) => void>(() => {})

/** A live region for the outcome of actions ("Item approved"), each message gone after a few seconds. */
export function ToastProvider({ children }: { children: ComponentChildren }) {
  const [toasts, setToasts] = useState<Toast[]>([])
  const next = useRef(1)
  const show = (kind: Toast['kind'], text: string) => {
    const id = next.current++
    setToasts((shown) => [...shown.slice(-3), { id, kind, text }])
    window.setTimeout(() => setToasts((shown) => shown.filter((toast) => toast.id !== id)), 6000)
  }
  return (
    <ToastContext.Provider value={show}>
      {children}
      <div class="toasts" role="status" aria-live="polite">
        {toasts.map((toast) => (
          <p key={toast.id} class={`toast toast-${toast.kind}`}>
            {toast.text}
          </p>
        ))}
      </div>
    </ToastContext.Provider>
  )
}

/** `toast('success', 'Item approved')`, or `toast.error(thrown)` for a failed action. */
export function useToast() {
  const show = useContext(ToastContext)
  return Object.assign(show, { failed: (error: unknown) => show('error', messageOf(error)) })
}

/** Tabs over one query parameter: each is a link, so a tab can be opened, shared and reloaded. */
export function Tabs({
  label,
  tabs,
  current,
  onSelect,
}: {
  label: string
  tabs: readonly { value: string; label: string; count?: number | undefined }[]
  current: string
  onSelect: (value: string) => void
}) {
  return (
    <div class="tabs" role="tablist" aria-label={label}>
      {tabs.map((tab) => (
        <button
          key={tab.value}
          type="button"
          role="tab"
          class="tab"
          aria-selected={tab.value === current ? 'true' : 'false'}
          tabIndex={tab.value === current ? 0 : -1}
          onClick={() => onSelect(tab.value)}
          onKeyDown={(event) => {
            const index = tabs.findIndex((t) => t.value === tab.value)
            const step = event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0
            if (!step) return
            event.preventDefault()
            const target = tabs[(index + step + tabs.length) % tabs.length]
            if (!target) return
            onSelect(target.value)
            const list = event.currentTarget.parentElement
            window.requestAnimationFrame(() =>
              list?.querySelector<HTMLButtonElement>('[aria-selected="true"]')?.focus(),
            )
          }}
        >
          {tab.label}
          {tab.count !== undefined && <span class="tab-count">{tab.count}</span>}
        </button>
      ))}
    </div>
  )
}

/** Previous and next, and where the user is; the page lives in the query string. */
export function Pager({
  page,
  totalPages,
  total,
  onPage,
}: {
  page: number
  totalPages: number
  total?: number
  onPage: (page: number) => void
}) {
  if (totalPages <= 1 && page <= 1)
    return total === undefined ? null : <p class="pager-total">{total} in all</p>
  return (
    <nav class="pager" aria-label="Pages">
      <Button onClick={() => onPage(page - 1)} disabled={page <= 1}>
        Previous
      </Button>
      <span>
        Page {page} of {Math.max(totalPages, 1)}
        {total !== undefined && ` · ${total} in all`}
      </span>
      <Button onClick={() => onPage(page + 1)} disabled={page >= totalPages}>
        Next
      </Button>
    </nav>
  )
}

/** The search box of a list: labelled `Search`, kept in the query string as the user stops typing. */
export function SearchBox({
  value,
  onSearch,
  placeholder,
}: {
  value: string
  onSearch: (value: string) => void
  placeholder?: string
}) {
  const [text, setText] = useState(value)
  const id = useId()
  const timer = useRef<number>(undefined)
  useEffect(() => setText(value), [value])
  return (
    <search class="search">
      <form
        onSubmit={(event) => {
          event.preventDefault()
          window.clearTimeout(timer.current)
          onSearch(text.trim())
        }}
      >
        <label for={id}>Search</label>
        <input
          id={id}
          type="search"
          value={text}
          placeholder={placeholder}
          onInput={(event) => {
            const next = event.currentTarget.value
            setText(next)
            window.clearTimeout(timer.current)
            timer.current = window.setTimeout(() => onSearch(next.trim()), 300)
          }}
        />
      </form>
    </search>
  )
}

/** A loading line for a region that is fetching (`aria-busy` is on the region itself). */
export function Loading({ what = 'Loading' }: { what?: string }) {
  return (
    <p class="loading" role="status">
      {what}…
    </p>
  )
}

/** Formats an ISO date-time for a table cell, in the user's locale. */
export function formatDate(value: string | null | undefined, withTime = false): string {
  if (!value) return '—'
  const date = new Date(value)
  if (Number.isNaN(date.getTime())) return value
  return withTime
    ? date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' })
    : date.toLocaleDateString(undefined, { dateStyle: 'medium' })
}
