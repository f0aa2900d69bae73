/**
 * A deployment's verification state as a person reads it: a badge ("Building", "Ready", "Failed"), a
 * sentence saying what is happening, and which states are final (polling stops there).
 */
import type { Answer } from '../api.ts'

export type Deployment = NonNullable<Answer<'/api/deploy/works/{id}/lookup', 'post'>['deployment']>
export type DeploymentState = Deployment['state']

interface StateText {
  label: string
  /** The badge's colour, as the stylesheets name it. */
  tone: string
  /** What it means, with `{provider}` for the provider's name. */
  means: string
}

const STATES: Record<DeploymentState, StateText> = {
  INITIALIZING: {
    label: 'Starting',
    tone: 'initializing',
    means: 'The deploy workflow was started; waiting for {provider} to create the deployment.',
  },
  QUEUED: { label: 'Queued', tone: 'queued', means: '{provider} queued the build.' },
  BUILDING: { label: 'Building', tone: 'building', means: '{provider} is building the site.' },
  READY: { label: 'Ready', tone: 'ready', means: 'The site is live.' },
  ERROR: { label: 'Failed', tone: 'error', means: 'The deployment failed.' },
  CANCELED: { label: 'Cancelled', tone: 'canceled', means: 'The deployment was cancelled.' },
  TIMEOUT: {
    label: 'Timed out',
    tone: 'failed',
    means: '{provider} did not finish the deployment in time; it was given up.',
  },
}

const FINAL: readonly DeploymentState[] = ['READY', 'ERROR', 'CANCELED', 'TIMEOUT']

/** READY, ERROR, CANCELED and TIMEOUT: verification has ended. */
export const isFinal = (state: DeploymentState) => FINAL.includes(state)

/** The steps a deployment walks through on its way to READY, in order. */
export const STEPS: readonly DeploymentState[] = ['INITIALIZING', 'QUEUED', 'BUILDING', 'READY']

export const stateLabel = (state: DeploymentState) => STATES[state].label

export function stateMeaning(deployment: Pick<Deployment, 'state' | 'providerName'>): string {
  return STATES[deployment.state].means.replace('{provider}', deployment.providerName)
}

export function StateBadge({ state }: { state: DeploymentState }) {
  return <span class={`status status-${STATES[state].tone}`}>{STATES[state].label}</span>
}
