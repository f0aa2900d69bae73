/** The outcome of an action said in a live region for a few seconds ("Item approved"). */
import type { ComponentChildren } from 'preact'
import { createContext } from 'preact'
import { useContext, useRef, useState } from 'preact/hooks'
import { messageOf } from './api.ts'

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
