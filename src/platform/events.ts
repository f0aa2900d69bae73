import type { EventBus } from '../db/event-bus.ts'
import type { GenerateStatus } from './works/tables.ts'

/** Where a request came from, for the events that record it. */
export interface EventContext {
  ipAddress?: string | undefined
  userAgent?: string | undefined
}

interface Base {
  /** The account the event belongs to (whose activity log records it). */
  userId: string
  context?: EventContext
}

/** SPEC.md "Internal domain events written to the activity log", plus the start of a generation run. */
export type DomainEvent =
  | (Base & { type: 'UserCreated'; email: string })
  | (Base & { type: 'UserConfirmed'; provider: string })
  | (Base & { type: 'UserPasswordChanged' })
  | (Base & { type: 'WorkCreated'; workId: string; workName: string })
  | (Base & { type: 'WorkGenerationStarted'; workId: string; workName: string })
  | (Base & {
      type: 'WorkGenerationCompleted'
      workId: string
      workName: string
      generateStatus: GenerateStatus
      itemsCount: number
      /** Why an ERROR run failed. */
      error?: string
      /** The run's last log lines, kept on its activity row as `details.liveLogs`. */
      logs?: string[]
    })
  | (Base & {
      type: 'WorksConfigSyncFailed'
      workId: string | null
      reason: string
      repository: string
      error: string
    })
  | (Base & { type: 'MemberInvited'; workId: string; workName: string; inviteeEmail: string; role: string })
  | (Base & {
      type: 'DeploymentDispatched'
      workId: string
      workName: string
      providerId: string
      providerName: string
      deploymentId?: string
    })
  | (Base & {
      type: 'DeploymentCompleted'
      workId: string
      workName: string
      providerId: string
      providerName: string
      url?: string
      /** The deployment whose activity row (`details.deploymentId`) it closes. */
      deploymentId?: string
    })
  | (Base & {
      type: 'DeploymentFailed'
      workId: string
      workName: string
      providerId: string
      providerName: string
      terminalState: 'ERROR' | 'CANCELED' | 'TIMEOUT'
      error: string
      /** The deployment whose activity row (`details.deploymentId`) it closes. */
      deploymentId?: string
    })

export type DomainEventType = DomainEvent['type']
export type EventOf<T extends DomainEventType> = Extract<DomainEvent, { type: T }>

/** The platform's domain events; listeners run in the transaction of the change (src/db/event-bus.ts). */
export type PlatformEvents = EventBus<DomainEvent>
