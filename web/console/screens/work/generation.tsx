/**
 * A work's Generation tab: which AI provider and model a run will use (or what is missing before one can
 * run), starting a generation with optional instructions, its progress and log live while it runs (the
 * work is read again every second, so the page header's status follows), cancelling it, and how the last
 * run ended: its items, or its failure's reason and the notification it raised.
 */
import { useState } from 'preact/hooks'
import { ApiError, messageOf, unwrap } from '../../../shared/api.ts'
import { useSubmit } from '../../../shared/form.ts'
import { usePolling } from '../../../shared/poll.ts'
import { Link } from '../../../shared/router.tsx'
import { Button, Loading, Notice, TextArea, useConfirm, useToast } from '../../../shared/ui.tsx'
import { api, type Work } from '../../api.ts'
import { GenerationFailure } from '../../generation/failure.tsx'
import { useAiProvider } from '../../generation/provider.ts'
import { ProviderSummary } from '../../generation/provider-summary.tsx'
import { lastStep, RunLog } from '../../generation/run-log.tsx'
import { isRunning, useRunEnd } from '../../generation/running.ts'
import { canEdit, type WorkTabProps } from '../../work-tab.ts'
import '../../generation/generation.css'

/** How often a running generation's state is read. */
const POLL_MS = 1000
const PROMPT_MAX_LENGTH = 4000

export default function Generation({ work, reload }: WorkTabProps) {
  const running = isRunning(work)
  const editor = canEdit(work)
  const provider = useAiProvider(work)
  const [conflict, setConflict] = useState<string | null>(null)
  usePolling(reload, POLL_MS, running)
  useRunEnd(work, () => setConflict(null))

  return (
    <section class="generation" aria-labelledby="generation-title">
      <h2 id="generation-title">Generation</h2>
      {editor && <Provider work={work} provider={provider} />}
      {running ? (
        <>
          {conflict && <Notice kind="info">{conflict}</Notice>}
          <Progress work={work} reload={reload} />
        </>
      ) : (
        <>
          <Outcome work={work} providerId={provider.data?.kind === 'none' ? undefined : provider.data?.id} />
          {editor ? (
            <StartForm
              work={work}
              blocked={provider.data !== undefined && provider.data.kind !== 'ready'}
              onStarted={reload}
              onConflict={async (message) => {
                setConflict(message)
                await reload()
              }}
            />
          ) : (
            <p class="muted">Owners and editors start generations; as a viewer you follow them here.</p>
          )}
        </>
      )}
      <RunLog logs={work.generateStatus.recentLogs} running={running} />
    </section>
  )
}

function Provider({ work, provider }: { work: Work; provider: ReturnType<typeof useAiProvider> }) {
  if (provider.error !== undefined && !provider.data)
    return <Notice kind="error">The work’s AI provider could not be read: {messageOf(provider.error)}</Notice>
  if (!provider.data) return <Loading what="Reading the work’s AI provider" />
  return <ProviderSummary work={work} state={provider.data} onChanged={provider.reload} />
}

/** A run under way: its step, an indeterminate bar (the provider gives no percentage), and Cancel. */
function Progress({ work, reload }: WorkTabProps) {
  const confirm = useConfirm()
  const toast = useToast()
  const queued = work.generateStatus.status === 'PENDING'
  const step = lastStep(work.generateStatus.recentLogs)

  const cancel = async () => {
    const sure = await confirm({
      title: 'Cancel this generation?',
      message:
        'The run stops and stores nothing: the AI provider’s answer, if it comes, is dropped. The items you have now stay.',
      confirmLabel: 'Cancel generation',
      danger: true,
    })
    if (!sure) return
    try {
      await unwrap(api.POST('/api/works/{id}/generate/cancel', { params: { path: { id: work.id } } }))
      toast('success', 'Generation cancelled')
    } catch (error) {
      // 409: it ended meanwhile; what it ended as shows once the work is read again.
      toast.failed(error)
    }
    await reload()
  }

  return (
    <div class="card run-progress">
      <p>
        <strong>{queued ? 'Queued: waiting for a worker to take the run' : 'Generating'}</strong>
        {step && <span class="muted"> · {step}</span>}
      </p>
      <progress aria-label={queued ? 'Generation queued' : 'Generation in progress'} />
      {canEdit(work) && (
        <Button kind="danger" onClick={cancel}>
          Cancel generation
        </Button>
      )}
    </div>
  )
}

/** How the last run ended, when one has. */
function Outcome({ work, providerId }: { work: Work; providerId: string | undefined }) {
  const { status, itemsCount } = work.generateStatus
  switch (status) {
    case 'COMPLETED':
      return (
        <Notice kind="success">
          The last generation stored {itemsCount} {itemsCount === 1 ? 'item' : 'items'}.{' '}
          <Link href={`/works/${work.id}/items`}>See the items</Link>
        </Notice>
      )
    case 'CANCELLED':
      return (
        <Notice kind="info">
          The last generation was cancelled; it stored nothing, and the items from before it stay.
        </Notice>
      )
    case 'ERROR':
      return <GenerationFailure work={work} providerId={providerId} />
    default:
      return null
  }
}

function StartForm({
  work,
  blocked,
  onStarted,
  onConflict,
}: {
  work: Work
  /** No provider is active, or it lacks a setting: the explanation above says what to do first. */
  blocked: boolean
  onStarted: () => Promise<void>
  onConflict: (message: string) => Promise<void>
}) {
  const toast = useToast()
  const [prompt, setPrompt] = useState('')
  const form = useSubmit(async () => {
    try {
      await unwrap(
        api.POST('/api/works/{id}/generate', {
          params: { path: { id: work.id } },
          body: prompt.trim() ? { prompt: prompt.trim() } : {},
        }),
      )
    } catch (error) {
      if (error instanceof ApiError && error.status === 409) {
        await onConflict(`${error.message}: its progress shows below.`)
        return
      }
      throw error
    }
    toast('success', 'Generation started')
    await onStarted()
  }, ['prompt'])

  return (
    <form class="card generate-form" onSubmit={form.submit} noValidate aria-labelledby="generate-title">
      <h3 id="generate-title">
        {work.generateStatus.status === 'IDLE' ? 'Generate the items' : 'Generate again'}
      </h3>
      <p class="muted small">
        The AI provider is asked for the directory’s items from the work’s name and description, and your
        instructions if you give some. When the run completes, its items replace the current ones.
      </p>
      {form.error && <Notice kind="error">{form.error}</Notice>}
      <TextArea
        label="Instructions (optional)"
        hint="What the directory should contain, in your words: a place, a kind of thing, what to leave out."
        value={prompt}
        onValue={setPrompt}
        error={form.fields.prompt}
        maxLength={PROMPT_MAX_LENGTH}
        rows={3}
      />
      <Button kind="primary" type="submit" busy={form.busy} disabled={blocked}>
        Generate items
      </Button>
    </form>
  )
}
