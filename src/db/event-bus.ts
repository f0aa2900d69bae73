import type { Logger } from 'pino'
import type { Tx } from './index.ts'
import { inSavepoint } from './transactions.ts'

/** What an emitter hands its listeners: the transaction of the change the event announces. */
export interface EmitOptions {
  tx: Tx
}

export type Listener<E> = (event: E, tx: Tx) => Promise<unknown> | unknown

export interface EventBus<E extends { type: string }> {
  on<T extends E['type']>(type: T, listener: Listener<Extract<E, { type: T }>>): void
  /**
   * Runs every listener of the event inside the emitter's transaction, one after the other in the order
   * they were added, so what they record (a row, a job) commits with the change or not at all: a crash at
   * any instant keeps both or neither. Each listener runs in its own savepoint: one that fails is logged
   * and its writes undone, and neither the emitter nor the other listeners are affected.
   */
  emit(event: E, options: EmitOptions): Promise<void>
}

/** A typed, in-process event bus whose listeners run in the transaction of the change. */
export function createEventBus<E extends { type: string }>(log: Logger): EventBus<E> {
  const listeners = new Map<string, Listener<E>[]>()
  return {
    on(type, listener) {
      const list = listeners.get(type) ?? []
      list.push(listener as Listener<E>)
      listeners.set(type, list)
    },
    async emit(event, { tx }) {
      for (const listener of listeners.get(event.type) ?? []) {
        await inSavepoint(
          tx,
          async (savepoint) => {
            await listener(event, savepoint)
          },
          (error) => log.error({ err: error, event: event.type }, 'event listener failed'),
        )
      }
    },
  }
}
