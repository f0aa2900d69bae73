/**
 * A secret shown once: a new API key or a webhook's signing secret, as the API answers it the only time it
 * ever does. The user reads the warning, copies the value with one button (the Clipboard API; the button
 * then says "Copied"), and closes it; from then on only its owner has it.
 */
import type { ComponentChildren } from 'preact'
import { useRef, useState } from 'preact/hooks'
import { Button, Dialog, Notice } from '../../shared/ui.tsx'
import './secrets.css'

export function SecretReveal({ label, value }: { label: string; value: string }) {
  const [copied, setCopied] = useState<'no' | 'yes' | 'refused'>('no')
  const code = useRef<HTMLElement>(null)
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value)
      setCopied('yes')
    } catch {
      // No clipboard here (an insecure origin, a refused permission): select it for the keyboard's copy.
      const selection = window.getSelection()
      if (code.current && selection) selection.selectAllChildren(code.current)
      setCopied('refused')
    }
  }
  return (
    <div class="secret">
      <Notice kind="info">
        <strong>Copy the {label} now: it won’t be shown again.</strong> Curio keeps no readable copy of it, so
        once you close this it cannot be shown to you, or anyone, again.
      </Notice>
      <figure class="secret-figure">
        <figcaption class="secret-label">{`${label.charAt(0).toUpperCase()}${label.slice(1)}`}</figcaption>
        <div class="secret-reveal">
          <code ref={code} class="secret-value">
            {value}
          </code>
          <Button kind="primary" onClick={copy}>
            {copied === 'yes' ? 'Copied' : 'Copy'}
            <span class="visually-hidden"> {label}</span>
          </Button>
        </div>
      </figure>
      <p class="field-hint" role="status">
        {copied === 'yes' && `Copied to the clipboard.`}
        {copied === 'refused' &&
          'The browser did not allow copying: the text is selected, copy it with Ctrl+C (⌘C on a Mac).'}
      </p>
    </div>
  )
}

/** A dialog revealing `value` once, with what to do with it; Done (or Escape) closes it for good. */
export function RevealDialog({
  title,
  label,
  value,
  onClose,
  children,
}: {
  title: string
  label: string
  /** The secret; the dialog is open while there is one. */
  value: string | null
  onClose: () => void
  /** What the secret is for, shown above it. */
  children?: ComponentChildren
}) {
  return (
    <Dialog title={title} open={value !== null} onClose={onClose} wide>
      {value !== null && <RevealBody label={label} value={value} onDone={onClose} intro={children} />}
    </Dialog>
  )
}

/** The revealed secret and its Done button, for a dialog that first held the form that made it. */
export function RevealBody({
  label,
  value,
  onDone,
  intro,
}: {
  label: string
  value: string
  onDone: () => void
  intro?: ComponentChildren
}) {
  return (
    <>
      {intro}
      <SecretReveal label={label} value={value} />
      <div class="actions">
        <Button onClick={onDone}>Done</Button>
      </div>
    </>
  )
}
