/**
 * Works: every work the user owns or was invited to, with its generation state, and a new one created
 * (name, optional slug); the new work opens at once.
 */
import { useState } from 'preact/hooks'
import { ApiError, messageOf, unwrap } from '../../shared/api.ts'
import { EditDialog, type FormHandlers } from '../../shared/edit-dialog.tsx'
import { useFields } from '../../shared/fields.ts'
import { useSubmit } from '../../shared/form.ts'
import { Page } from '../../shared/page.tsx'
import { useResource } from '../../shared/resource.ts'
import { Link, navigate } from '../../shared/router.tsx'
import { type Column, DataTable } from '../../shared/table.tsx'
import { Button, formatDate, Notice, TextArea, TextField } from '../../shared/ui.tsx'
import { api, type Work } from '../api.ts'
import { GenerationStatus } from '../work-status.tsx'

export default function Works() {
  const [creating, setCreating] = useState<'new' | null>(null)
  const list = useResource((signal) => unwrap(api.GET('/api/works', { signal })), [])

  const columns: Column<Work>[] = [
    {
      header: 'Work',
      cell: (work) => (
        <>
          <Link href={`/works/${work.id}`}>
            <strong>{work.name}</strong>
          </Link>
          <div class="muted small">{work.slug}</div>
        </>
      ),
    },
    { header: 'Your role', cell: (work) => work.role },
    { header: 'Generation', cell: (work) => <GenerationStatus status={work.generateStatus} /> },
    { header: 'Items', cell: (work) => work.generateStatus.itemsCount },
    { header: 'Updated', secondary: true, cell: (work) => formatDate(work.updatedAt, true) },
  ]

  return (
    <Page
      title="Works"
      actions={
        <>
          {(list.data?.works.length ?? 0) > 1 && <Link href="/works/deploy">Deploy several works</Link>}
          <Button kind="primary" onClick={() => setCreating('new')}>
            New work
          </Button>
        </>
      }
    >
      {list.error !== undefined && <Notice kind="error">{messageOf(list.error)}</Notice>}
      <DataTable
        caption="Your works"
        columns={columns}
        rows={list.data?.works}
        rowKey={(work) => work.id}
        busy={list.loading}
        empty="No works yet. Create one with New work: a directory site you generate and deploy."
      />
      <EditDialog editing={creating} title={() => 'New work'} onClose={() => setCreating(null)}>
        {(_, form) => <NewWorkForm {...form} />}
      </EditDialog>
    </Page>
  )
}

function NewWorkForm({ onCancel }: FormHandlers) {
  const [values, set] = useFields({ name: '', slug: '', description: '' })
  const form = useSubmit(async () => {
    const work = await unwrap(
      api.POST('/api/works', {
        body: {
          name: values.name.trim(),
          ...(values.slug.trim() ? { slug: values.slug.trim() } : {}),
          ...(values.description.trim() ? { description: values.description.trim() } : {}),
        },
      }),
    ).catch((error: unknown) => {
      // A slug already used by another of the user's works is about the Slug field.
      if (error instanceof ApiError && error.code === 'SLUG_TAKEN')
        throw new ApiError(error.status, error.code, error.message, [
          { field: 'slug', message: error.message },
        ])
      throw error
    })
    navigate(`/works/${work.id}`)
  }, ['name', 'slug', 'description'])
  return (
    <form onSubmit={form.submit} noValidate>
      {form.error && <Notice kind="error">{form.error}</Notice>}
      <TextField
        label="Name"
        value={values.name}
        onValue={set('name')}
        error={form.fields.name}
        required
        autofocus
      />
      <TextField
        label="Slug"
        hint="Optional: lowercase letters, digits and dashes. Made from the name when empty."
        value={values.slug}
        onValue={set('slug')}
        error={form.fields.slug}
      />
      <TextArea
        label="Description"
        hint="Optional: what the directory lists."
        value={values.description}
        onValue={set('description')}
        error={form.fields.description}
        rows={3}
      />
      <div class="actions">
        <Button kind="primary" type="submit" busy={form.busy}>
          Create work
        </Button>
        <Button onClick={onCancel}>Cancel</Button>
      </div>
    </form>
  )
}
