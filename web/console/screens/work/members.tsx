/**
 * Who works on this work: the owner, editors (change it) and viewers (look). The owner invites a user by
 * their account's email, with a role, and removes members.
 */
import { useState } from 'preact/hooks'
import { messageOf, unwrap } from '../../../shared/api.ts'
import { useSubmit } from '../../../shared/form.ts'
import { useResource } from '../../../shared/resource.ts'
import { useRowAction } from '../../../shared/row-action.ts'
import { RowButton } from '../../../shared/row-button.tsx'
import { type Column, DataTable } from '../../../shared/table.tsx'
import { Button, Notice, Select, TextField, useToast } from '../../../shared/ui.tsx'
import { type Answer, api } from '../../api.ts'
import type { WorkTabProps } from '../../work-tab.ts'

type Member = Answer<'/api/works/{id}/members'>['members'][number]

const ROLES = [
  { value: 'editor', label: 'Editor: changes the work, generates and deploys' },
  { value: 'viewer', label: 'Viewer: sees the work' },
]

export default function Members({ work }: WorkTabProps) {
  const act = useRowAction()
  const owner = work.role === 'owner'
  const members = useResource(
    (signal) => unwrap(api.GET('/api/works/{id}/members', { signal, params: { path: { id: work.id } } })),
    [work.id],
  )

  const columns: Column<Member>[] = [
    { header: 'Email', cell: (member) => member.email },
    { header: 'Role', cell: (member) => member.role },
  ]
  if (owner) {
    columns.push({
      header: 'Actions',
      class: 'row-actions',
      cell: (member) =>
        member.role === 'owner' ? null : (
          <RowButton
            action="Remove"
            name={member.email}
            kind="danger"
            onClick={() =>
              act({
                ask: {
                  title: 'Remove this member?',
                  message: `${member.email} will no longer see or change “${work.name}”.`,
                  confirmLabel: 'Remove',
                  danger: true,
                },
                run: () =>
                  unwrap(
                    api.DELETE('/api/works/{id}/members/{userId}', {
                      params: { path: { id: work.id, userId: member.userId } },
                    }),
                  ),
                done: `${member.email} removed`,
                reload: members.reload,
              })
            }
          />
        ),
    })
  }

  return (
    <section aria-labelledby="members-title">
      <h2 id="members-title">Members</h2>
      {members.error !== undefined && <Notice kind="error">{messageOf(members.error)}</Notice>}
      <DataTable
        caption="Members of the work"
        columns={columns}
        rows={members.data?.members}
        rowKey={(member) => member.userId}
        busy={members.loading}
        empty="No members yet."
      />
      {owner ? (
        <InviteForm workId={work.id} onInvited={members.reload} />
      ) : (
        <p class="muted">Only the owner invites and removes members.</p>
      )}
    </section>
  )
}

function InviteForm({ workId, onInvited }: { workId: string; onInvited: () => Promise<void> }) {
  const toast = useToast()
  const [email, setEmail] = useState('')
  const [role, setRole] = useState<'editor' | 'viewer'>('editor')
  const form = useSubmit(async () => {
    const member = await unwrap(
      api.POST('/api/works/{id}/members', {
        params: { path: { id: workId } },
        body: { email: email.trim(), role },
      }),
    )
    toast('success', `${member.email} invited as ${member.role}`)
    setEmail('')
    await onInvited()
  }, ['email', 'role'])
  return (
    <form class="card inline-form" onSubmit={form.submit} noValidate aria-labelledby="invite-title">
      <h3 id="invite-title">Invite a member</h3>
      <p class="muted">They need a Curio account with this email.</p>
      {form.error && <Notice kind="error">{form.error}</Notice>}
      <TextField
        label="Member email"
        type="email"
        value={email}
        onValue={setEmail}
        error={form.fields.email}
        required
      />
      <Select
        label="Role"
        value={role}
        options={ROLES}
        onValue={(value) => setRole(value as 'editor' | 'viewer')}
        error={form.fields.role}
      />
      <Button kind="primary" type="submit" busy={form.busy}>
        Invite
      </Button>
    </form>
  )
}
