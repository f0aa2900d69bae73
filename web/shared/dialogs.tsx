/**
 * Modal dialogs on the native `<dialog>` (focus moves in and back, Escape closes), and the page's one
 * confirmation dialog, asked through `useConfirm()` before anything that cannot be undone.
 */
import type { ComponentChildren } from 'preact'
import { createContext } from 'preact'
import { useContext, useEffect, useId, useRef, useState } from 'preact/hooks'
import { Button } from './button.tsx'

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
