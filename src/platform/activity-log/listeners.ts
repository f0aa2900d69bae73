import type { PlatformEvents } from '../events.ts'
import type { GenerateStatus } from '../works/tables.ts'
import type { ActivityStatus } from './tables.ts'
import type { ActivityWriter } from './writer.ts'

/** How a finished generation run's work status reads in the activity log. */
export function generationOutcome(status: GenerateStatus): ActivityStatus {
  if (status === 'CANCELLED') return 'cancelled'
  if (status === 'ERROR') return 'failed'
  if (status === 'GENERATING' || status === 'PENDING') return 'in_progress'
  return 'completed'
}

/**
 * Writes SPEC.md's "Internal domain events written to the activity log" rows in the transaction of the
 * change; the bus runs each in a savepoint, so a failed write never breaks the code that emitted the event.
 */
export function registerActivityListeners(events: PlatformEvents, activity: ActivityWriter) {
  events.on('UserCreated', ({ userId, email, context }, tx) =>
    activity.record(
      {
        userId,
        actionType: 'user_signup',
        action: 'user.signup',
        status: 'completed',
        summary: `Signed up as ${email}`,
        context,
      },
      tx,
    ),
  )

  events.on('UserConfirmed', ({ userId, provider, context }, tx) =>
    activity.record(
      {
        userId,
        actionType: 'user_login',
        action: 'user.confirmed',
        status: 'completed',
        summary: `Signed in with ${provider}`,
        details: { provider },
        context,
      },
      tx,
    ),
  )

  events.on('UserPasswordChanged', ({ userId, context }, tx) =>
    activity.record(
      {
        userId,
        actionType: 'password_changed',
        action: 'user.password_changed',
        status: 'completed',
        summary: `Password changed${context?.ipAddress ? ` from ${context.ipAddress}` : ''}`,
        details: { ipAddress: context?.ipAddress ?? null },
        context,
      },
      tx,
    ),
  )

  events.on('WorkCreated', ({ userId, workId, workName, context }, tx) =>
    activity.record(
      {
        userId,
        workId,
        actionType: 'work_created',
        action: 'work.created',
        status: 'completed',
        summary: `Created work "${workName}"`,
        context,
      },
      tx,
    ),
  )

  events.on('WorkGenerationStarted', ({ userId, workId, workName, context }, tx) =>
    activity.record(
      {
        userId,
        workId,
        actionType: 'generation',
        action: 'generation.started',
        status: 'in_progress',
        summary: `Generating items for "${workName}"`,
        context,
      },
      tx,
    ),
  )

  events.on(
    'WorkGenerationCompleted',
    ({ userId, workId, workName, generateStatus, itemsCount, error, logs, context }, tx) => {
      const status = generationOutcome(generateStatus)
      return activity.complete(
        {
          userId,
          workId,
          actionType: 'generation',
          action: 'generation.completed',
          status,
          summary:
            status === 'completed'
              ? `Generated ${itemsCount} items for "${workName}"`
              : `Generation for "${workName}" ${status === 'cancelled' ? 'was cancelled' : 'failed'}`,
          details: {
            generateStatus,
            itemsCount,
            ...(error === undefined ? {} : { error }),
            ...(logs === undefined ? {} : { liveLogs: logs }),
          },
          context,
        },
        tx,
      )
    },
  )

  events.on('WorksConfigSyncFailed', ({ userId, workId, reason, repository, error, context }, tx) =>
    activity.record(
      {
        userId,
        workId,
        actionType: 'works_config_sync',
        action: 'works_config.sync_failed',
        status: 'failed',
        summary: `Works configuration sync to ${repository} failed: ${reason}`,
        details: { reason, repository, error },
        context,
      },
      tx,
    ),
  )

  events.on('MemberInvited', ({ userId, workId, workName, inviteeEmail, role, context }, tx) =>
    activity.record(
      {
        userId,
        workId,
        actionType: 'member_invited',
        action: 'member.invited',
        status: 'completed',
        summary: `Invited ${inviteeEmail} to "${workName}" as ${role}`,
        details: { inviteeEmail, role },
        context,
      },
      tx,
    ),
  )

  events.on(
    'DeploymentDispatched',
    ({ userId, workId, workName, providerId, providerName, deploymentId, context }, tx) =>
      activity.record(
        {
          userId,
          workId,
          actionType: 'deployment',
          action: 'deployment.dispatched',
          status: 'in_progress',
          summary: `Deploying "${workName}" to ${providerName}`,
          details: { providerId, providerName, ...(deploymentId ? { deploymentId } : {}) },
          context,
        },
        tx,
      ),
  )

  events.on(
    'DeploymentCompleted',
    ({ userId, workId, workName, providerId, providerName, url, deploymentId, context }, tx) =>
      activity.complete(
        {
          userId,
          workId,
          actionType: 'deployment',
          action: 'deployment.succeeded',
          status: 'completed',
          summary: url ? `Deployed "${workName}" to ${url}` : `Deployed "${workName}" to ${providerName}`,
          details: {
            providerId,
            providerName,
            ...(url ? { url } : {}),
            ...(deploymentId ? { deploymentId } : {}),
          },
          context,
        },
        tx,
        {},
        deploymentId ? { key: 'deploymentId', id: deploymentId } : undefined,
      ),
  )

  events.on(
    'DeploymentFailed',
    (
      { userId, workId, workName, providerId, providerName, terminalState, error, deploymentId, context },
      tx,
    ) => {
      const cancelled = terminalState === 'CANCELED'
      return activity.complete(
        {
          userId,
          workId,
          actionType: 'deployment',
          action: cancelled ? 'deployment.cancelled' : 'deployment.failed',
          status: cancelled ? 'cancelled' : 'failed',
          summary: cancelled
            ? `Deployment of "${workName}" was cancelled`
            : `Deployment of "${workName}" failed (${terminalState}): ${error}`,
          details: {
            providerId,
            providerName,
            terminalState,
            error,
            ...(deploymentId ? { deploymentId } : {}),
          },
          context,
        },
        tx,
        {},
        deploymentId ? { key: 'deploymentId', id: deploymentId } : undefined,
      )
    },
  )
}
