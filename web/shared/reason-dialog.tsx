/** A dialog that asks for a reason (or a note) before a refusal: reject, cancel. Closing it forgets what was typed. */
import type { ComponentChildren } from 'preact'
import { useState } from 'preact/hooks'
import { useSubmit } from './form.ts'
import { Button, Dialog, Notice, TextArea } from './ui.tsx'

export function ReasonDialog({
  title,
  open,
  onClose,
  intro,
  label,
  hint,
  maxLength,
  rows,
  field,
  shown = [field],
  confirmLabel,
  keepLabel,
  send,
}: {
  title: string
  open: boolean
  onClose: () => void
  /** What the dialog says before the field. */
  intro?: ComponentChildren
  label: string
  hint: string
  maxLength: number
  rows?: number
  /** The API's name of the field, whose refusal shows under it. */
  field: string
  /** The fields the form shows (`useSubmit`'s), when more than `field`. */
  shown?: readonly string[]
  /** The danger button that sends it. */
  confirmLabel: string
  /** The button that closes without sending. */
  keepLabel: string
  /** Sends the trimmed reason; what it throws is shown. */
  send: (reason: string) => Promise<void>
}) {
  const [reason, setReason] = useState('')
  const submission = useSubmit(async () => {
    await send(reason.trim())
    setReason('')
  }, shown)
  const close = () => {
    submission.reset()
    setReason('')
    onClose()
  }
  return (
    <Dialog title={title} open={open} onClose={close}>
      <form onSubmit={submission.submit} noValidate>
        {intro}
        {submission.error && <Notice kind="error">{submission.error}</Notice>}
        <TextArea
          label={label}
          value={reason}
          onValue={setReason}
          error={submission.fields[field]}
          hint={hint}
          maxLength={maxLength}
          {...(rows === undefined ? {} : { rows })}
        />
        <div class="actions">
          <Button kind="danger" type="submit" busy={submission.busy}>
            {confirmLabel}
          </Button>
          <Button onClick={close}>{keepLabel}</Button>
        </div>
      </form>
    </Dialog>
  )
}
