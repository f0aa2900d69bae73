/**
 * One webhook subscription: where it sends, what it covers and how it fares, and its delivery log, live.
 * The user sends a test and sees what the endpoint answered, pauses it, resumes it (a new subscription to
 * the same endpoint, as the API cannot switch a paused one back on), gives it a new signing secret (shown
 * once) or deletes it.
 */
import { useState } from 'preact/hooks'
import { messageOf, unwrap } from '../../shared/api.ts'
import { Page } from '../../shared/page.tsx'
import { useResource } from '../../shared/resource.ts'
import { Link, navigate } from '../../shared/router.tsx'
import { useRowAction } from '../../shared/row-action.ts'
import type { ScreenProps } from '../../shared/screens.tsx'
import { Button, formatDate, Loading, Notice, useConfirm, useToast } from '../../shared/ui.tsx'
import { type Answer, api } from '../api.ts'
import { RevealDialog } from '../secrets/secret-reveal.tsx'
import { type DeliveryFeed, DeliveryLog, useDeliveries } from '../webhooks/delivery-log.tsx'
import { OUTCOME, type Subscription, SubscriptionStatus, scopeOf, workNames } from '../webhooks/model.tsx'

type TestResult = Answer<'/api/webhooks/{id}/test', 'post'>

export default function Webhook({ params }: ScreenProps) {
  const id = params.id ?? ''
  const [revealed, setRevealed] = useState<{ title: string; secret: string } | null>(null)
  const [tested, setTested] = useState<{ id: string; result: TestResult } | null>(null)
  const subscriptions = useResource((signal) => unwrap(api.GET('/api/webhooks', { signal })), [])
  const works = useResource((signal) => unwrap(api.GET('/api/works', { signal })), [])
  const feed = useDeliveries()
  const subscription = subscriptions.data?.webhooks.find((one) => one.id === id)

  const reveal = (
    <RevealDialog
      title={revealed?.title ?? ''}
      label="signing secret"
      value={revealed?.secret ?? null}
      onClose={() => setRevealed(null)}
    >
      <p>
        Give it to your endpoint now: from this moment on, deliveries are signed with it and no longer with
        the previous one.
      </p>
    </RevealDialog>
  )

  if (!subscription) {
    if (!subscriptions.data && subscriptions.error === undefined)
      return <Loading what="Loading the webhook" />
    return (
      <Page title="Webhook subscription">
        {subscriptions.error !== undefined ? (
          <Notice kind="error">{messageOf(subscriptions.error)}</Notice>
        ) : (
          <Notice kind="error">
            This subscription is neither active nor paused: it was deleted, or it failed after too many failed
            deliveries in a row and sends nothing more. A new one can be made on{' '}
            <Link href="/webhooks">Webhooks</Link>.
          </Notice>
        )}
        <DeliveryLog feed={feed} subscriptions={subscriptions.data?.webhooks} only={id} />
        {reveal}
      </Page>
    )
  }

  return (
    <Page
      title="Webhook subscription"
      actions={
        <Actions
          subscription={subscription}
          feed={feed}
          reload={subscriptions.reload}
          onSecret={(title, secret) => setRevealed({ title, secret })}
          onTested={(result) => setTested({ id: subscription.id, result })}
        />
      }
    >
      <p>
        <Link href="/webhooks">All webhooks</Link>
      </p>
      <dl class="facts">
        <dt>Endpoint</dt>
        <dd class="break">{subscription.url}</dd>
        <dt>Scope</dt>
        <dd>
          {subscription.workId ? (
            <Link href={`/works/${subscription.workId}`}>
              {scopeOf(subscription, workNames(works.data?.works))}
            </Link>
          ) : (
            scopeOf(subscription, workNames(works.data?.works))
          )}
        </dd>
        <dt>Status</dt>
        <dd>
          <SubscriptionStatus status={subscription.status} />
        </dd>
        <dt>Failures in a row</dt>
        <dd>{subscription.consecutiveFailures}</dd>
        <dt>Created</dt>
        <dd>{formatDate(subscription.createdAt, true)}</dd>
        <dt>Changed</dt>
        <dd>{formatDate(subscription.updatedAt, true)}</dd>
      </dl>
      {subscription.status === 'paused' && (
        <Notice>Paused: nothing is sent to this endpoint. Resume makes a new subscription to it.</Notice>
      )}
      {tested?.id === subscription.id && <TestOutcome result={tested.result} feed={feed} />}
      <DeliveryLog feed={feed} subscriptions={subscriptions.data?.webhooks} only={subscription.id} />
      {reveal}
    </Page>
  )
}

/** What the endpoint made of the last Send test, with the error its delivery recorded. */
function TestOutcome({ result, feed }: { result: TestResult; feed: DeliveryFeed }) {
  if (result.ok) return <Notice kind="success">Test delivered: the endpoint answered {result.status}.</Notice>
  const error = feed.deliveries?.find((delivery) => delivery.id === result.deliveryId)?.lastError
  return (
    <Notice kind="error">
      The test was not accepted: {OUTCOME[result.outcome]}
      {result.status === null ? ', no HTTP answer' : `, HTTP ${result.status}`}.{error ? ` ${error}` : ''}
    </Notice>
  )
}

function Actions({
  subscription,
  feed,
  reload,
  onSecret,
  onTested,
}: {
  subscription: Subscription
  feed: DeliveryFeed
  reload: () => Promise<void>
  onSecret: (title: string, secret: string) => void
  onTested: (result: TestResult) => void
}) {
  const act = useRowAction()
  const confirm = useConfirm()
  const toast = useToast()
  const path = { params: { path: { id: subscription.id } } }

  const test = async () => {
    try {
      const result = await unwrap(api.POST('/api/webhooks/{id}/test', path))
      await feed.refresh()
      onTested(result)
      await reload()
    } catch (error) {
      toast.failed(error)
    }
  }

  const resume = async () => {
    const sure = await confirm({
      title: 'Resume this webhook?',
      message:
        'A paused subscription cannot be switched back on. Curio makes a new subscription to the same endpoint and scope, with a new signing secret (shown once), and deletes this paused one; its past deliveries stay in the log.',
      confirmLabel: 'Resume with a new secret',
    })
    if (!sure) return
    let created: Answer<'/api/webhooks', 'post'>
    try {
      created = await unwrap(
        api.POST('/api/webhooks', {
          body: { url: subscription.url, ...(subscription.workId ? { workId: subscription.workId } : {}) },
        }),
      )
    } catch (error) {
      toast.failed(error)
      return
    }
    // The new secret is shown whatever happens next: it exists only in this answer.
    onSecret('Webhook resumed', created.signingSecret)
    try {
      await unwrap(api.DELETE('/api/webhooks/{id}', path))
    } catch (error) {
      toast('error', `The paused subscription is still there (${messageOf(error)}): delete it on its page.`)
    }
    await reload()
    navigate(`/webhooks/${created.id}`, { replace: true })
  }

  const rotate = async () => {
    const sure = await confirm({
      title: 'Rotate the signing secret?',
      message:
        'The current secret stops signing at once, pending retries included: your endpoint must take the new one, shown once.',
      confirmLabel: 'Rotate secret',
      danger: true,
    })
    if (!sure) return
    try {
      const rotated = await unwrap(api.POST('/api/webhooks/{id}/rotate-secret', path))
      onSecret('New signing secret', rotated.signingSecret)
      await reload()
    } catch (error) {
      toast.failed(error)
    }
  }

  return (
    <>
      {subscription.status === 'active' && (
        <>
          <Button kind="primary" onClick={test}>
            Send test
          </Button>
          <Button
            onClick={() =>
              act({
                ask: {
                  title: 'Pause this webhook?',
                  message:
                    'Nothing more is sent to this endpoint, pending retries included. Resuming later makes a new subscription with a new signing secret.',
                  confirmLabel: 'Pause',
                },
                run: () => unwrap(api.PATCH('/api/webhooks/{id}', { ...path, body: { status: 'paused' } })),
                done: 'Webhook paused',
                reload,
              })
            }
          >
            Pause
          </Button>
        </>
      )}
      {subscription.status === 'paused' && (
        <Button kind="primary" onClick={resume}>
          Resume
        </Button>
      )}
      <Button onClick={rotate}>Rotate secret</Button>
      <Button
        kind="danger"
        onClick={() =>
          act({
            ask: {
              title: 'Delete this webhook?',
              message: `Nothing more is sent to ${subscription.url}; its pending deliveries stop. Its past deliveries stay in the log. This cannot be undone.`,
              confirmLabel: 'Delete webhook',
              danger: true,
            },
            run: () => unwrap(api.DELETE('/api/webhooks/{id}', path)),
            done: 'Webhook deleted',
            reload: async () => navigate('/webhooks', { replace: true }),
          })
        }
      >
        Delete
      </Button>
    </>
  )
}
