import type { Tx } from '../../db/index.ts'
import type { PaymentEvent, PaymentEventType } from '../../integrations/payments/contract/events.ts'

/** An event as a handler is given it: any type but `ignored`, which the inbox records as unhandled. */
export type HandledPaymentEvent = PaymentEvent & { type: Exclude<PaymentEventType, 'ignored'> }

/**
 * A module's part in the payment events, handed to the payments module when the app is built: the effects
 * of one verified, normalised event, run in the transaction that marks the stored event processed (so they
 * apply once, or not at all and the event is retried), and a line saying what they were.
 */
export interface PaymentEventHandler {
  onPaymentEvent(tx: Tx, event: HandledPaymentEvent): Promise<string>
}
