import { AiProviderError } from '../../integrations/openai/client.ts'
import { badRequest, HttpError, invalidInput } from '../../lib/errors.ts'
import type { Plugin } from './definition.ts'
import { checkSettingsChange } from './settings-schema.ts'

/** The checks and refusals the user-level and work-level plugin services share. */

export const notEnabled = (plugin: Plugin) =>
  badRequest(
    `The ${plugin.name} plugin is not enabled for your account: enable it first`,
    'PLUGIN_NOT_ENABLED',
  )

/** 400 naming every setting of a change that breaks the plugin's schema. */
export function validatedChange(
  plugin: Plugin,
  change: { settings?: Record<string, unknown>; secretSettings?: Record<string, unknown> },
) {
  const { result, issues } = checkSettingsChange(plugin.settingsSchema, change, 'body')
  if (issues.length > 0) {
    throw invalidInput(issues, {
      summary:
        issues.length === 1
          ? `${issues[0]!.field} ${issues[0]!.message}`
          : `${issues.length} settings are invalid: ${issues.map((issue) => issue.field).join(', ')}`,
    })
  }
  return result
}

/** A provider's failure as our answer: its reason, never a 500, never its credentials. */
export function providerFailure(plugin: Plugin, error: unknown): HttpError {
  if (!(error instanceof AiProviderError)) throw error
  const reason = `${plugin.name}: ${error.message}`
  switch (error.kind) {
    case 'auth':
      return new HttpError(400, 'PROVIDER_CREDENTIALS_REJECTED', reason)
    case 'credits':
      return new HttpError(400, 'PROVIDER_CREDITS_EXHAUSTED', reason)
    case 'blocked':
      return new HttpError(400, 'PROVIDER_ADDRESS_BLOCKED', reason)
    case 'timeout':
      return new HttpError(504, 'PROVIDER_TIMEOUT', reason)
    default:
      return new HttpError(502, 'PROVIDER_ERROR', reason)
  }
}

export const notConfigured = (plugin: Plugin) =>
  badRequest(
    `The ${plugin.name} plugin is missing a required setting (${(plugin.settingsSchema.required ?? []).join(', ')}): ` +
      `set it with PATCH /api/plugins/${plugin.id}/settings`,
    'PLUGIN_NOT_CONFIGURED',
  )
