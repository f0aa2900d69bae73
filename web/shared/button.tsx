/** A button that says what it does; an async action keeps it busy (disabled) until it settles: no double submit. */
import type { ButtonHTMLAttributes } from 'preact'
import { useState } from 'preact/hooks'

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
