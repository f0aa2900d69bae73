/**
 * Messages: what people sent through the site's contact form, newest first, with search, the mail status
 * filter and the page in the query string, paging on the server. A message opens in a dialog named in
 * the query string (`?message=<id>`), so a reload, a shared link or a notification opens it: the whole
 * text, the sender's name and address, where its email to the team stands, and `Reply by email`.
 */
import { ApiError, messageOf, unwrap } from '../../shared/api.ts'
import { useList } from '../../shared/list.ts'
import { Page } from '../../shared/page.tsx'
import { PagedTable } from '../../shared/paged-table.tsx'
import { useResource } from '../../shared/resource.ts'
import { href, Link } from '../../shared/router.tsx'
import type { Column } from '../../shared/table.tsx'
import { Button, Dialog, formatDate, Loading, Notice, SearchBox, Select } from '../../shared/ui.tsx'
import { type Answer, api } from '../api.ts'
import './messages.css'

const PAGE_SIZE = 25

type ContactMessage = Answer<'/api/admin/contact-messages'>['data'][number]
type MailStatus = ContactMessage['mail']['status']

const MAIL_LABELS: Record<MailStatus, string> = {
  not_configured: 'Not emailed',
  pending: 'Pending',
  sent: 'Sent',
  failed: 'Failed',
}

/** What each mail status means, as the message's dialog explains it. */
const MAIL_MEANINGS: Record<MailStatus, string> = {
  not_configured:
    'Kept here only: email was not set up when it came (no SMTP server, or no contact address in the site settings).',
  pending: 'Queued to be emailed to the site’s contact address, or being tried again after a failed attempt.',
  sent: 'Emailed to the site’s contact address.',
  failed: 'Every attempt to email it failed: this is the only copy.',
}

const MAIL_FILTERS: readonly { value: string; label: string }[] = [
  { value: '', label: 'Any mail status' },
  { value: 'sent', label: 'Sent' },
  { value: 'pending', label: 'Pending' },
  { value: 'failed', label: 'Failed' },
  { value: 'not_configured', label: 'Not emailed (email not set up)' },
]

const isMailStatus = (value: string | null): value is MailStatus =>
  value !== null && Object.hasOwn(MAIL_LABELS, value)

/** The subject, or the first words of the text when there is none. */
function summaryOf(message: Pick<ContactMessage, 'subject' | 'message'>): string {
  if (message.subject) return message.subject
  const text = message.message.replace(/\s+/g, ' ').trim()
  if (text.length <= 80) return text
  const cut = text.slice(0, 80)
  const space = cut.lastIndexOf(' ')
  return `${space > 40 ? cut.slice(0, space) : cut}…`
}

/** An email address as a `mailto:` target, `@` and `+` kept as they read. */
function mailtoAddress(email: string): string {
  return encodeURIComponent(email).replace(/%40/g, '@').replace(/%2B/gi, '+')
}

/** A reply to the sender, its subject filled in. */
export function replyHref(message: Pick<ContactMessage, 'email' | 'subject'>): string {
  const subject = message.subject ? `Re: ${message.subject}` : 'Re: your message'
  return `mailto:${mailtoAddress(message.email)}?subject=${encodeURIComponent(subject)}`
}

export function MailStatusBadge({ status }: { status: MailStatus }) {
  return <span class={`status mail-${status}`}>{MAIL_LABELS[status]}</span>
}

export default function Messages() {
  const { query, setQuery, page, search, setSearch, setFilter, setPage } = useList()
  const asked = query.get('mailStatus')
  const mailStatus = isMailStatus(asked) ? asked : undefined
  const opened = query.get('message') ?? ''

  const list = useResource(
    (signal) =>
      unwrap(
        api.GET('/api/admin/contact-messages', {
          signal,
          params: {
            query: {
              page,
              limit: PAGE_SIZE,
              ...(search ? { search } : {}),
              ...(mailStatus ? { mailStatus } : {}),
            },
          },
        }),
      ),
    [page, search, mailStatus],
  )
  const rows = list.data?.data

  /** This view's address with `message` set: a link that opens the message over the same list. */
  const openHref = (id: string) => href('/messages', { ...Object.fromEntries(query), message: id })

  const columns: Column<ContactMessage>[] = [
    {
      header: 'From',
      cell: (message) => (
        <>
          <span class="message-name">{message.name}</span>
          <div class="muted small break-anywhere">{message.email}</div>
        </>
      ),
    },
    {
      header: 'Message',
      cell: (message) => (
        <>
          <Link href={openHref(message.id)} class="message-open">
            {summaryOf(message)}
          </Link>
          {message.subject && <p class="message-preview muted small">{message.message}</p>}
        </>
      ),
    },
    { header: 'Received', cell: (message) => formatDate(message.createdAt, true) },
    {
      header: 'Mail',
      secondary: true,
      cell: (message) => (
        <>
          <MailStatusBadge status={message.mail.status} />
          {message.mail.status === 'failed' && message.mail.attempts > 0 && (
            <div class="muted small">
              after {message.mail.attempts} {message.mail.attempts === 1 ? 'attempt' : 'attempts'}
            </div>
          )}
        </>
      ),
    },
    {
      header: 'Actions',
      class: 'row-actions',
      cell: (message) => (
        <a
          class="button button-secondary"
          href={replyHref(message)}
          aria-label={`Reply to ${message.name} by email`}
        >
          Reply
        </a>
      ),
    },
  ]

  const filtered = Boolean(search || mailStatus)
  const fromList = rows?.find((row) => row.id === opened)

  return (
    <Page title="Messages">
      <p class="muted">What people sent through the site’s contact form, newest first.</p>
      <div class="toolbar">
        <SearchBox value={search} onSearch={setSearch} placeholder="Name, email, subject or text" />
        <Select
          label="Mail status"
          value={mailStatus ?? ''}
          onValue={(value) => setFilter('mailStatus', value)}
          options={MAIL_FILTERS}
        />
      </div>
      <PagedTable
        caption="Contact messages"
        columns={columns}
        rows={rows}
        rowKey={(message) => message.id}
        busy={list.loading}
        empty={
          filtered
            ? 'No message matches these filters.'
            : 'No messages yet: what people send through the site’s contact form shows here.'
        }
        error={list.error}
        meta={list.data?.meta}
        page={page}
        onPage={setPage}
      />
      <MessageDialog id={opened} known={fromList} onClose={() => setQuery({ message: undefined })} />
    </Page>
  )
}

/** The opened message, read on its own (it may not be on this page of the list). */
function MessageDialog({
  id,
  known,
  onClose,
}: {
  id: string
  known: ContactMessage | undefined
  onClose: () => void
}) {
  const detail = useResource(
    async (signal) =>
      id
        ? (await unwrap(api.GET('/api/admin/contact-messages/{id}', { signal, params: { path: { id } } })))
            .data
        : undefined,
    [id],
  )
  const message = detail.data?.id === id ? detail.data : known
  const title = message ? (message.subject ?? `Message from ${message.name}`) : 'Message'
  // An earlier message's failure is not this one's: it counts once this one's answer is in.
  const failed = !detail.loading && detail.error !== undefined
  const missing = detail.error instanceof ApiError && detail.error.status === 404
  return (
    <Dialog title={title} open={id !== ''} onClose={onClose} wide>
      {failed ? (
        <>
          <Notice kind="error">
            {missing
              ? 'This message is not in the directory: the link may be wrong.'
              : messageOf(detail.error)}
          </Notice>
          <div class="actions">
            {!missing && <Button onClick={detail.reload}>Try again</Button>}
            <Button onClick={onClose}>Close</Button>
          </div>
        </>
      ) : message ? (
        <MessageView message={message} onClose={onClose} />
      ) : (
        <Loading what="Loading the message" />
      )}
    </Dialog>
  )
}

function MessageView({ message, onClose }: { message: ContactMessage; onClose: () => void }) {
  const { mail } = message
  return (
    <article class="message-view">
      <dl class="facts">
        <dt>From</dt>
        <dd>{message.name}</dd>
        <dt>Email</dt>
        <dd class="break-anywhere">{message.email}</dd>
        <dt>Subject</dt>
        <dd>{message.subject ?? <span class="muted">None given</span>}</dd>
        <dt>Received</dt>
        <dd>{formatDate(message.createdAt, true)}</dd>
      </dl>
      <section aria-label="Message text">
        <p class="message-text">{message.message}</p>
      </section>
      <div class="actions">
        <a class="button button-primary" href={replyHref(message)}>
          Reply by email
        </a>
        <Button onClick={onClose}>Close</Button>
      </div>
      <dl class="facts message-meta">
        <dt>Sent by</dt>
        <dd>
          {message.userId ? <Account id={message.userId} /> : 'A visitor, not signed in'}
          {message.clientIp && <div class="muted small">from {message.clientIp}</div>}
        </dd>
        <dt>Email to the team</dt>
        <dd>
          <MailStatusBadge status={mail.status} />
          {mail.status === 'sent' && mail.mailedAt && ` ${formatDate(mail.mailedAt, true)}`}
          <div class="muted small">
            {MAIL_MEANINGS[mail.status]}
            {mail.attempts > 0 && ` ${mail.attempts} ${mail.attempts === 1 ? 'attempt' : 'attempts'}.`}
          </div>
          {mail.error && <div class="message-mail-error small">{mail.error}</div>}
        </dd>
      </dl>
    </article>
  )
}

/** The account the sender was signed in with, linked to the users list searched for it. */
function Account({ id }: { id: string }) {
  const user = useResource(
    async (signal) =>
      (await unwrap(api.GET('/api/admin/users/{id}', { signal, params: { path: { id } } }))).data,
    [id],
  )
  if (user.data)
    return (
      <>
        Signed in as{' '}
        <Link href={href('/users', { search: user.data.email })}>{user.data.name ?? user.data.username}</Link>{' '}
        <span class="muted break-anywhere">({user.data.email})</span>
      </>
    )
  if (user.error instanceof ApiError && user.error.status === 404)
    return <>A member whose account has since been deleted</>
  if (user.error !== undefined) return <>A signed-in member ({messageOf(user.error)})</>
  return <>A signed-in member</>
}
