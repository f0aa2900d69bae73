/**
 * What the user does with the clients selected in the list: a bar that says how many are selected, with
 * Change selected (their status, plan or account type, in a dialog), Delete selected (after confirming) and
 * Clear selection. Each client is changed on its own; those the API refuses are named in a toast.
 */
import { useState } from 'preact/hooks'
import { unwrap } from '../../shared/api.ts'
import { useSubmit } from '../../shared/form.ts'
import { Button, Dialog, Notice, useConfirm, useToast } from '../../shared/ui.tsx'
import { api } from '../api.ts'
import {
  ACCOUNT_TYPE_LABELS,
  CLIENT_STATUS_LABELS,
  type ClientChoice,
  ClientChoices,
  PLAN_LABELS,
} from '../client-profile.tsx'
import { defined, pick } from './clients-params.ts'

/** A bulk call's failures, each named by its client's name where the page shows it. */
function bulkFailures(
  errors: readonly { index: number; id: string; error: string }[],
  names: ReadonlyMap<string, string>,
): string {
  return errors.map((e) => `${names.get(e.id) ?? e.id}: ${e.error}`).join('; ')
}

/** The bulk bar, shown while clients are selected, and its Change dialog. */
export function BulkActions({
  selected,
  names,
  onClear,
  onChanged,
}: {
  selected: ReadonlySet<string>
  /** The names of the clients the page shows, by id. */
  names: ReadonlyMap<string, string>
  onClear: () => void
  /** After a bulk change or deletion: says so, clears the selection and reloads. */
  onChanged: (message: string) => Promise<void>
}) {
  const toast = useToast()
  const confirm = useConfirm()
  const [bulkEditing, setBulkEditing] = useState(false)

  const bulkDelete = async () => {
    const ids = [...selected]
    const sure = await confirm({
      title: `Delete ${ids.length} ${ids.length === 1 ? 'client' : 'clients'}?`,
      message: 'Their client profiles will be deleted for good. Their sign-in accounts stay.',
      confirmLabel: 'Delete',
      danger: true,
    })
    if (!sure) return
    try {
      const answer = await unwrap(
        api.DELETE('/api/admin/clients/bulk', { body: { clients: ids.map((id) => ({ id })) } }),
      )
      if (answer.errors.length > 0) toast('error', bulkFailures(answer.errors, names))
      await onChanged(answer.message)
    } catch (error) {
      toast.failed(error)
    }
  }

  return (
    <>
      {selected.size > 0 && (
        <section class="bulkbar" aria-label="Bulk actions">
          <span>{selected.size} selected</span>
          <Button kind="primary" onClick={() => setBulkEditing(true)}>
            Change selected
          </Button>
          <Button kind="danger" onClick={bulkDelete}>
            Delete selected
          </Button>
          <Button kind="link" onClick={onClear}>
            Clear selection
          </Button>
        </section>
      )}
      <BulkUpdate
        clients={bulkEditing ? [...selected] : null}
        names={names}
        onClose={() => setBulkEditing(false)}
        onUpdated={async (message) => {
          setBulkEditing(false)
          await onChanged(message)
        }}
      />
    </>
  )
}

const UNCHANGED: Record<ClientChoice, string> = { status: '', plan: '', accountType: '' }

/** Sets the status, plan or account type of the selected clients; what is left "as it is" stays. */
function BulkUpdate({
  clients,
  names,
  onClose,
  onUpdated,
}: {
  clients: string[] | null
  names: ReadonlyMap<string, string>
  onClose: () => void
  onUpdated: (message: string) => Promise<void>
}) {
  const toast = useToast()
  const [choices, setChoices] = useState<Record<ClientChoice, string>>(UNCHANGED)
  const { status, plan, accountType } = choices
  const [unchanged, setUnchanged] = useState(false)
  const save = useSubmit(async () => {
    if (!clients) return
    if (!status && !plan && !accountType) {
      setUnchanged(true)
      return
    }
    const changes = defined({
      status: pick(CLIENT_STATUS_LABELS, status || null),
      plan: pick(PLAN_LABELS, plan || null),
      accountType: pick(ACCOUNT_TYPE_LABELS, accountType || null),
    })
    const answer = await unwrap(
      api.PUT('/api/admin/clients/bulk', { body: { clients: clients.map((id) => ({ id, ...changes })) } }),
    )
    if (answer.errors.length > 0) toast('error', bulkFailures(answer.errors, names))
    setChoices(UNCHANGED)
    await onUpdated(answer.message)
  })
  const close = () => {
    save.reset()
    setUnchanged(false)
    onClose()
  }
  const size = clients?.length ?? 0
  const noun = size === 1 ? 'client' : 'clients'
  return (
    <Dialog title={`Change ${size} ${noun}`} open={clients !== null} onClose={close}>
      <form onSubmit={save.submit} noValidate aria-label={`Change ${size} ${noun}`}>
        {save.error && <Notice kind="error">{save.error}</Notice>}
        {unchanged && <Notice kind="error">Choose at least one change to make.</Notice>}
        <p>The changes below apply to every selected client; each one is changed on its own.</p>
        <ClientChoices
          values={choices}
          first={{ value: '', label: 'Leave as it is' }}
          onValue={(choice, value) => {
            setUnchanged(false)
            setChoices((current) => ({ ...current, [choice]: value }))
          }}
        />
        <div class="actions">
          <Button kind="primary" type="submit" busy={save.busy}>
            Change {size} {noun}
          </Button>
          <Button onClick={close}>Cancel</Button>
        </div>
      </form>
    </Dialog>
  )
}
