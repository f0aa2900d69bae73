import { useEffect, useState } from 'preact/hooks'
import { ApiError, messageOf, unwrap } from '../../shared/api.ts'
import { EditDialog, type FormHandlers } from '../../shared/edit-dialog.tsx'
import { useSubmit } from '../../shared/form.ts'
import { Page } from '../../shared/page.tsx'
import { useResource } from '../../shared/resource.ts'
import { Link, navigate } from '../../shared/router.tsx'
import { type ChunkLoader, preload, type ScreenProps, useChunk } from '../../shared/screens.tsx'
import { Button, Loading, Notice, Tabs, TextArea, TextField, useConfirm, useToast } from '../../shared/ui.tsx'
import { api, type Work } from '../api.ts'
import { GenerationStatus } from '../work-status.tsx'
import { canEdit, type WorkTabProps } from '../work-tab.ts'

type TabModule = ChunkLoader<WorkTabProps>

const TABS: readonly { value: string; label: string; load: TabModule }[] = [
  { value: 'items', label: 'Items', load: () => import('./work/items.tsx') },
  { value: 'generation', label: 'Generation', load: () => import('./work/generation.tsx') },
  { value: 'deploy', label: 'Deploy', load: () => import('./work/deploy.tsx') },
  { value: 'members', label: 'Members', load: () => import('./work/members.tsx') },
  { value: 'plugins', label: 'Plugins', load: () => import('./work/plugins.tsx') },
  { value: 'webhooks', label: 'Webhooks', load: () => import('./work/webhooks.tsx') },
  { value: 'activity', label: 'Activity', load: () => import('./work/activity.tsx') },
]

export default function WorkPage({ params }: ScreenProps) {
  const id = params.id ?? ''
  const tab = TABS.find((candidate) => candidate.value === (params.tab ?? 'items'))
  const toast = useToast()
  const confirm = useConfirm()
  const [renaming, setRenaming] = useState<Work | null>(null)
  const work = useResource(
    (signal) => unwrap(api.GET('/api/works/{id}', { signal, params: { path: { id } } })),
    [id],
  )
  // The tab's chunk loads while the work is asked for, not after.
  useEffect(() => {
    if (tab) preload(tab.load)
  }, [tab?.load])

  if (work.error !== undefined && !work.data) {
    const missing = work.error instanceof ApiError && work.error.status === 404
    return (
      <Page title={missing ? 'Work not found' : 'Work'}>
        <Notice kind="error">
          {missing ? 'There is no such work, or it is not shared with you.' : messageOf(work.error)}
        </Notice>
        <Link href="/works">Back to your works</Link>
      </Page>
    )
  }
  if (!work.data) return <Loading what="Loading the work" />
  const current = work.data

  const remove = async () => {
    const sure = await confirm({
      title: 'Delete this work?',
      message: `“${current.name}”, its generated items, members, plugin settings and webhooks are deleted for good. Deployed sites and their repositories stay where they are.`,
      confirmLabel: 'Delete work',
      danger: true,
    })
    if (!sure) return
    try {
      await unwrap(api.DELETE('/api/works/{id}', { params: { path: { id } } }))
      toast('success', `“${current.name}” deleted`)
      navigate('/works', { replace: true })
    } catch (error) {
      toast.failed(error)
    }
  }

  return (
    <Page
      title={current.name}
      actions={
        <>
          <GenerationStatus status={current.generateStatus} />
          {canEdit(current) && <Button onClick={() => setRenaming(current)}>Rename</Button>}
          {current.role === 'owner' && (
            <Button kind="danger" onClick={remove}>
              Delete
            </Button>
          )}
        </>
      }
    >
      <p class="muted">
        {current.slug} · you are {current.role === 'owner' ? 'the owner' : `an ${current.role}`}
        {current.description ? ` · ${current.description}` : ''}
      </p>
      <Tabs
        label="Work sections"
        tabs={TABS}
        current={tab?.value ?? ''}
        onSelect={(value) => navigate(`/works/${id}/${value}`)}
      />
      <div role="tabpanel" aria-label={tab?.label ?? 'Not found'} class="tab-panel">
        {tab ? (
          <WorkTab key={tab.value} load={tab.load} work={current} reload={work.reload} />
        ) : (
          <Notice kind="error">This work has no such section.</Notice>
        )}
      </div>
      <EditDialog editing={renaming} title={() => 'Rename the work'} onClose={() => setRenaming(null)}>
        {(row, form) => (
          <RenameForm
            work={row}
            {...form}
            onSaved={async (message) => {
              await form.onSaved(message)
              toast('success', message)
              await work.reload()
            }}
          />
        )}
      </EditDialog>
    </Page>
  )
}

function WorkTab({ load, ...props }: WorkTabProps & { load: TabModule }) {
  const { Component, failed } = useChunk(load)
  if (failed) return <Notice kind="error">This section could not be loaded; reload the page.</Notice>
  return Component ? <Component {...props} /> : <Loading />
}

function RenameForm({ work, onCancel, onSaved }: FormHandlers & { work: Work }) {
  const [name, setName] = useState(work.name)
  const [description, setDescription] = useState(work.description ?? '')
  const form = useSubmit(async () => {
    await unwrap(
      api.PATCH('/api/works/{id}', {
        params: { path: { id: work.id } },
        body: { name: name.trim(), description: description.trim() },
      }),
    )
    await onSaved('Work renamed')
  }, ['name', 'description'])
  return (
    <form onSubmit={form.submit} noValidate>
      {form.error && <Notice kind="error">{form.error}</Notice>}
      <TextField label="Name" value={name} onValue={setName} error={form.fields.name} required autofocus />
      <TextArea
        label="Description"
        value={description}
        onValue={setDescription}
        error={form.fields.description}
        rows={3}
      />
      <div class="actions">
        <Button kind="primary" type="submit" busy={form.busy}>
          Save
        </Button>
        <Button onClick={onCancel}>Cancel</Button>
      </div>
    </form>
  )
}
