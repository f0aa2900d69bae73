/**
 * Categories against the Git data repository: which repository and branch, its last commit, whether the
 * active categories stored here match its `categories.json`, and each difference with the action that
 * mends it (sent to Git one by one or all at once, or created here from the file).
 */
import { useState } from 'preact/hooks'
import { ApiError, messageOf, unwrap } from '../../shared/api.ts'
import { useResource } from '../../shared/resource.ts'
import { type Column, DataTable } from '../../shared/table.tsx'
import { Button, formatDate, Loading, Notice, useToast } from '../../shared/ui.tsx'
import { api } from '../api.ts'

interface Difference {
  id: string
  here: string | null
  inGit: string | null
}

/**
 * The Git data repository: which repository and branch, its last commit, whether the active categories
 * stored here match its `categories.json`, and each difference with the action that mends it.
 */
export function GitSync({
  changes,
  onChanged,
}: {
  changes: number
  onChanged: (message: string) => Promise<void>
}) {
  const toast = useToast()
  const [reads, setReads] = useState(0)
  const git = useResource(
    (signal) => unwrap(api.GET('/api/admin/categories/git', { signal })),
    [changes, reads],
  )
  const stored = useResource(
    (signal) => unwrap(api.GET('/api/admin/categories/all', { signal })),
    [changes, reads],
  )
  const notConfigured = git.error instanceof ApiError && git.error.code === 'GIT_NOT_CONFIGURED'

  const differences: Difference[] = []
  if (git.data && stored.data) {
    const file = new Map(git.data.categories.map((entry) => [entry.id, entry.name]))
    const here = new Set<string>()
    for (const category of stored.data.data) {
      here.add(category.id)
      const inGit = file.get(category.id)
      if (inGit !== category.name)
        differences.push({ id: category.id, here: category.name, inGit: inGit ?? null })
    }
    for (const entry of git.data.categories)
      if (!here.has(entry.id)) differences.push({ id: entry.id, here: null, inGit: entry.name })
  }

  const send = async (difference: Difference) => {
    if (difference.here === null) return
    await unwrap(
      api.POST('/api/admin/categories/git', { body: { id: difference.id, name: difference.here } }),
    )
  }

  const sendOne = async (difference: Difference) => {
    try {
      await send(difference)
      toast('success', `“${difference.here}” ${difference.inGit === null ? 'added to' : 'updated in'} Git`)
      setReads((n) => n + 1)
    } catch (error) {
      toast.failed(error)
    }
  }

  const sendAll = async () => {
    const toSend = differences.filter((d) => d.here !== null)
    let sent = 0
    try {
      for (const difference of toSend) {
        await send(difference)
        sent++
      }
      toast('success', `${sent} ${sent === 1 ? 'category' : 'categories'} sent to Git`)
    } catch (error) {
      toast('error', `${sent} of ${toSend.length} sent; then: ${messageOf(error)}`)
    }
    setReads((n) => n + 1)
  }

  const createHere = async (difference: Difference) => {
    if (difference.inGit === null) return
    try {
      await unwrap(api.POST('/api/admin/categories', { body: { id: difference.id, name: difference.inGit } }))
      await onChanged(`“${difference.inGit}” created from the data repository`)
    } catch (error) {
      toast.failed(error)
    }
  }

  const columns: Column<Difference>[] = [
    { header: 'Id', cell: (d) => <code>{d.id}</code> },
    { header: 'Here', cell: (d) => d.here ?? <span class="muted">Not here (or inactive)</span> },
    { header: 'In Git', cell: (d) => d.inGit ?? <span class="muted">Missing</span> },
    {
      header: 'Actions',
      class: 'row-actions',
      cell: (d) =>
        d.here === null ? (
          <Button aria-label={`Create here ${d.inGit}`} onClick={() => createHere(d)}>
            Create here
          </Button>
        ) : (
          <Button
            kind="primary"
            aria-label={`${d.inGit === null ? 'Add to Git' : 'Update in Git'} ${d.here}`}
            onClick={() => sendOne(d)}
          >
            {d.inGit === null ? 'Add to Git' : 'Update in Git'}
          </Button>
        ),
    },
  ]

  const status = git.data?.status
  return (
    <section class="card catalog-git" aria-labelledby="git-sync" aria-busy={git.loading ? 'true' : 'false'}>
      <div class="catalog-section-header">
        <h2 id="git-sync">Git sync</h2>
        {!notConfigured && (
          <Button onClick={() => setReads((n) => n + 1)} disabled={git.loading}>
            Check again
          </Button>
        )}
      </div>
      {git.loading && !git.data && git.error === undefined && <Loading what="Reading the data repository" />}
      {notConfigured && (
        <Notice>
          <strong>Git sync is not configured.</strong> The directory answers: “{messageOf(git.error)}”. To
          keep the categories in a data repository's <code>categories.json</code>, set{' '}
          <code>DATA_REPOSITORY</code> (<code>owner/name</code>) and <code>GIT_TOKEN</code> on the directory.
        </Notice>
      )}
      {git.error !== undefined && !notConfigured && (
        <Notice kind="error">The data repository could not be read: {messageOf(git.error)}</Notice>
      )}
      {status && git.error === undefined && (
        <>
          <dl class="catalog-facts">
            <div>
              <dt>Repository</dt>
              <dd>{status.repository}</dd>
            </div>
            <div>
              <dt>Branch</dt>
              <dd>{status.branch}</dd>
            </div>
            <div>
              <dt>Last commit</dt>
              <dd>
                {status.lastCommit ? (
                  <>
                    <code>{status.lastCommit.slice(0, 7)}</code> {formatDate(status.lastCommitDate, true)}
                  </>
                ) : (
                  'None yet'
                )}
              </dd>
            </div>
            <div>
              <dt>State</dt>
              <dd>
                <span class={`status status-${status.isUpToDate ? 'active' : 'pending'}`}>
                  {status.isUpToDate ? 'Up to date' : 'Out of sync'}
                </span>
              </dd>
            </div>
          </dl>
          <p>{git.data?.message}</p>
          {stored.error !== undefined && <Notice kind="error">{messageOf(stored.error)}</Notice>}
          {differences.length > 0 && (
            <>
              <DataTable
                caption="Differences with the data repository"
                columns={columns}
                rows={differences}
                rowKey={(d) => d.id}
                empty="No differences."
              />
              {differences.some((d) => d.here !== null) && (
                <div class="actions">
                  <Button kind="primary" onClick={sendAll}>
                    Send all to Git
                  </Button>
                </div>
              )}
            </>
          )}
        </>
      )}
    </section>
  )
}
