import { and, desc, eq } from 'drizzle-orm'
import type { Logger } from 'pino'
import type { Tx } from '../../db/index.ts'
import { paymentProvider } from '../../integrations/payments/registry.ts'
import type { Mailer } from '../../integrations/smtp/mailer.ts'
import type { Jobs } from '../../jobs/index.ts'
import type { Clock } from '../../lib/clock.ts'
import { isUuid } from '../../lib/ids.ts'
import { users } from '../accounts/tables.ts'
import type { HandledPaymentEvent, PaymentEventHandler } from '../payments/handler.ts'
import type { SponsorAdLedger } from './ledger.ts'
import { addPeriods, type SponsorAdRow } from './rows.ts'
import { OPEN_SPONSOR_AD_STATUSES, sponsorAds } from './tables.ts'

/** The queue of the emails about an ad's payments (confirmations, failures, trial endings). */
export const SPONSOR_AD_MAIL_JOB = 'sponsor-ad-mail'

/** An email to an ad's owner; the site's name frames it when it is sent. */
export interface SponsorAdMail {
  to: string
  subject: string
  lines: string[]
}

/**
 * The queue a version before the payments inbox put its payment emails in, each one finished (subject and
 * text already framed). Still worked, so that the emails queued when such a version stopped are sent by
 * the one that replaced it.
 */
export const QUEUED_PAYMENT_MAIL_JOB = 'payment-mail'

/** An email of `QUEUED_PAYMENT_MAIL_JOB`: sent as it is. */
export interface FinishedMail {
  to: string
  subject: string
  text: string
}

export interface SponsorAdBillingDeps {
  clock: Clock
  log: Pick<Logger, 'info' | 'warn' | 'error'>
  jobs: Pick<Jobs, 'send'>
  ledger: Pick<SponsorAdLedger, 'record' | 'noteSubscription' | 'upsertSubscription' | 'markPastDue'>
  /** SMTP, when configured; without it no email is queued. */
  mailer: Mailer | undefined
  siteName: () => Promise<string>
}

export type SponsorAdBilling = ReturnType<typeof createSponsorAdBilling>

/** The ad a payment names, locked: by its metadata's id, else by the provider's subscription. */
async function lockAdForPayment(tx: Tx, event: HandledPaymentEvent): Promise<SponsorAdRow | null> {
  const sponsorAdId = event.metadata?.sponsorAdId ?? null
  const subscriptionId = event.subscription?.subscriptionId ?? null
  if (sponsorAdId && isUuid(sponsorAdId)) {
    const [row] = await tx.select().from(sponsorAds).where(eq(sponsorAds.id, sponsorAdId)).for('update')
    if (row) return row
  }
  if (subscriptionId) {
    const [row] = await tx
      .select()
      .from(sponsorAds)
      .where(
        and(eq(sponsorAds.paymentProvider, event.provider), eq(sponsorAds.subscriptionId, subscriptionId)),
      )
      .orderBy(desc(sponsorAds.createdAt))
      .limit(1)
      .for('update')
    if (row) return row
  }
  return null
}

/**
 * What the providers' payment events do to an ad, as CONTRACT.md says: a payment submits it for review,
 * credits a period while it waits, or renews it; a cancelled subscription cancels it; failures and trial
 * endings are told to its owner. It runs in the payment inbox's transaction, under the ad's row lock, so a
 * payment and an admin's move never both apply to the status they read.
 */
export function createSponsorAdBilling({ clock, log, jobs, ledger, mailer, siteName }: SponsorAdBillingDeps) {
  /** Queues an email to the ad's owner in the transaction (nothing without SMTP). */
  async function mailOwner(tx: Tx, ad: SponsorAdRow, subject: string, lines: string[]) {
    if (!mailer) return
    const [owner] = await tx.select({ email: users.email }).from(users).where(eq(users.id, ad.userId))
    if (!owner) return
    const mail: SponsorAdMail = { to: owner.email, subject, lines }
    await jobs.send(SPONSOR_AD_MAIL_JOB, mail, { tx })
  }

  /** A payment received: recorded once, and moving its ad as CONTRACT.md says. */
  async function applyPayment(tx: Tx, event: HandledPaymentEvent, ad: SponsorAdRow | null): Promise<string> {
    const payment = event.payment
    if (!payment) return 'not a completed payment; nothing to apply'
    const now = clock.now()
    let effect: 'submitted' | 'renewed' | 'credited' | 'none' = 'none'
    let changes: Partial<typeof sponsorAds.$inferInsert> = {}
    if (ad) {
      if (ad.status === 'pending_payment') {
        effect = 'submitted'
        changes = { status: 'pending', paidAt: ad.paidAt ?? now, unusedPeriods: ad.unusedPeriods + 1 }
      } else if (ad.status === 'pending') {
        // Paid again while in review: the approval gives every period paid for.
        effect = 'credited'
        changes = { unusedPeriods: ad.unusedPeriods + 1 }
      } else if (ad.status === 'active' || ad.status === 'expired') {
        // A renewal: a new period from the later of now and its end date.
        effect = 'renewed'
        const from = ad.endDate && ad.endDate.getTime() > now.getTime() ? ad.endDate : now
        changes = {
          status: 'active',
          startDate: ad.startDate ?? now,
          endDate: addPeriods(from, ad.interval, 1),
        }
      }
    }
    const fresh = await ledger.record(tx, event, ad, payment.reference, payment.kind, effect)
    const subscriptionId = event.subscription?.subscriptionId ?? null
    if (!fresh) {
      // The same payment, reported again with what the first report lacked (LemonSqueezy's order comes
      // before its subscription): the ad learns its subscription, so a cancel can reach it.
      if (ad && subscriptionId && !payment.reference.startsWith('initial:')) {
        const learnt = await ledger.noteSubscription(
          tx,
          { provider: event.provider, reference: payment.reference, sponsorAdId: ad.id },
          subscriptionId,
        )
        if (learnt) {
          await tx.update(sponsorAds).set({ subscriptionId, updatedAt: now }).where(eq(sponsorAds.id, ad.id))
          return `payment ${payment.reference} was recorded before; its subscription ${subscriptionId} noted`
        }
      }
      return `payment ${payment.reference} was recorded before; nothing applied again`
    }
    if (!ad) return `payment ${payment.reference} recorded; it names no sponsor ad of this site`
    if (effect === 'none') {
      log.warn(
        { sponsorAdId: ad.id, status: ad.status, reference: payment.reference, provider: event.provider },
        'payment received for a sponsor ad that is closed; refund it at the provider if it should not stand',
      )
      return `payment ${payment.reference} recorded; the ad is ${ad.status}, so nothing moved`
    }
    await tx
      .update(sponsorAds)
      .set({
        ...changes,
        ...(payment.kind === 'initial' || !ad.subscriptionId
          ? {
              paymentProvider: event.provider === 'solidgate' ? ad.paymentProvider : event.provider,
              ...(subscriptionId ? { subscriptionId } : {}),
              ...(event.customerId ? { customerId: event.customerId } : {}),
            }
          : {}),
        updatedAt: now,
      })
      .where(eq(sponsorAds.id, ad.id))
    const what =
      effect === 'submitted'
        ? 'Your payment was received. Your ad is now waiting for review; it starts running once approved.'
        : effect === 'credited'
          ? 'Your payment was received. Your ad is still waiting for review; the approval will start every period paid for.'
          : `Your payment was received and your ad runs until ${(changes.endDate as Date).toISOString().slice(0, 10)}.`
    await mailOwner(tx, ad, `Payment received for your sponsor ad: ${ad.title}`, [
      what,
      '',
      `Ad: ${ad.title} (${ad.interval})`,
      ...(event.amount === null ? [] : [`Amount: ${formatAmount(event.amount, event.currency)}`]),
    ])
    return `payment ${payment.reference} applied: ad ${ad.id} ${effect === 'submitted' ? 'moved to pending' : effect}`
  }

  const handler: PaymentEventHandler = {
    async onPaymentEvent(tx, event) {
      const ad = await lockAdForPayment(tx, event)
      if (!ad && (event.metadata || event.payment)) {
        log.warn(
          { provider: event.provider, eventId: event.id, sponsorAdId: event.metadata?.sponsorAdId },
          'payment event for an unknown sponsor ad',
        )
      }
      const now = clock.now()
      const providerName = paymentProvider(event.provider).name
      switch (event.type) {
        case 'payment_succeeded':
        case 'subscription_payment_succeeded':
          if (event.type === 'subscription_payment_succeeded') await ledger.upsertSubscription(tx, event, ad)
          return applyPayment(tx, event, ad)
        case 'subscription_created':
          await ledger.upsertSubscription(tx, event, ad)
          return applyPayment(tx, event, ad)
        case 'subscription_updated':
          await ledger.upsertSubscription(tx, event, ad)
          return `subscription ${event.subscription?.subscriptionId ?? '(none)'} updated`
        case 'subscription_cancelled': {
          await ledger.upsertSubscription(tx, event, ad, event.subscription?.status ?? 'cancelled')
          const subscriptionId = event.subscription?.subscriptionId ?? null
          const sameSubscription =
            !ad?.subscriptionId || !subscriptionId || ad.subscriptionId === subscriptionId
          if (ad && sameSubscription && (OPEN_SPONSOR_AD_STATUSES as readonly string[]).includes(ad.status)) {
            await tx
              .update(sponsorAds)
              .set({
                status: 'cancelled',
                cancelReason: `The subscription was cancelled at ${providerName}`,
                cancelledAt: now,
                cancelledBy: null,
                updatedAt: now,
              })
              .where(eq(sponsorAds.id, ad.id))
            return `subscription cancelled: ad ${ad.id} cancelled`
          }
          return 'subscription cancelled; no open ad runs on it'
        }
        case 'subscription_payment_failed':
        case 'payment_failed': {
          await ledger.record(tx, event, ad, `failed:${event.id}`, 'failed', 'none')
          if (event.type === 'subscription_payment_failed') {
            await ledger.upsertSubscription(tx, event, ad, 'past_due')
            const id = event.subscription?.subscriptionId
            if (id) await ledger.markPastDue(tx, event.provider, id, now)
          }
          log.warn(
            { provider: event.provider, eventId: event.id, sponsorAdId: ad?.id, type: event.providerType },
            'payment failed',
          )
          if (ad) {
            await mailOwner(tx, ad, `Payment failed for your sponsor ad: ${ad.title}`, [
              `${providerName} could not take the payment for your sponsor ad.`,
              'Please check your payment method; the ad stops when its paid time ends.',
              '',
              `Ad: ${ad.title} (${ad.interval})`,
            ])
          }
          return event.type === 'subscription_payment_failed'
            ? 'payment failed: subscription past due'
            : 'payment failed'
        }
        case 'subscription_trial_ending':
          await ledger.upsertSubscription(tx, event, ad)
          if (ad) {
            const end = event.subscription?.trialEnd
            await mailOwner(tx, ad, `Your sponsor ad’s trial ends soon: ${ad.title}`, [
              `The trial of your sponsor ad ends${end ? ` on ${end.toISOString().slice(0, 10)}` : ' soon'}.`,
              'Its subscription will then be charged, unless you cancel it.',
            ])
          }
          return 'trial ending: notified'
        case 'refund_succeeded': {
          await ledger.record(tx, event, ad, `refund:${event.id}`, 'refund', 'none')
          log.info(
            { provider: event.provider, eventId: event.id, sponsorAdId: ad?.id, amount: event.amount },
            'refund',
          )
          return 'refund recorded'
        }
      }
    },
  }

  async function deliver(through: Mailer, mail: FinishedMail): Promise<void> {
    const outcome = await through.send(mail)
    if (outcome.ok) return
    log.warn({ subject: mail.subject, error: outcome.error, retry: outcome.retry }, 'payment email not sent')
    // Thrown, so pg-boss tries again later; a refusal that will not pass is dropped.
    if (outcome.retry) throw new Error(outcome.error)
  }

  return {
    /** What the payments inbox hands each event to. */
    paymentHandler: handler,

    /** The mail job: the email, framed with the site's name as it is now; a failure that may pass is thrown. */
    async sendMail(mail: SponsorAdMail): Promise<void> {
      if (!mailer) return
      const site = await siteName()
      await deliver(mailer, {
        to: mail.to,
        subject: `[${site}] ${mail.subject}`,
        text: [...mail.lines, '', `-- ${site}`].join('\n'),
      })
    },

    /** An email an earlier version queued finished: sent as it is. */
    async sendFinishedMail(mail: FinishedMail): Promise<void> {
      if (mailer) await deliver(mailer, mail)
    },
  }
}

/** `30000, 'usd'` → `300.00 USD`. */
function formatAmount(amount: number, currency: string | null): string {
  return `${(amount / 100).toFixed(2)} ${(currency ?? '').toUpperCase()}`.trim()
}
