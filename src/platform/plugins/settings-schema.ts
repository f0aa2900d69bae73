import { Ajv, type ValidateFunction } from 'ajv'
import addFormatsModule from 'ajv-formats'
import { validationDetails } from '../../http/errors.ts'
import type { FieldIssue } from '../../lib/errors.ts'
import type { SettingProperty, SettingsSchema } from './definition.ts'
import { isMasked, type ValidatedChange } from './settings.ts'

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv

// One compiler for every plugin's settings; `x-secret` and `x-envVar` are annotations, not keywords to check.
const ajv = addFormats(new Ajv({ allErrors: true, verbose: true, strict: false }))
ajv.addKeyword({ keyword: 'x-secret' })
ajv.addKeyword({ keyword: 'x-envVar' })

const compiled = new WeakMap<SettingsSchema, Record<string, ValidateFunction>>()

/** One validator per setting of the schema (compiled once per schema); throws when the schema is invalid. */
export function compileSettingsSchema(schema: SettingsSchema): Record<string, ValidateFunction> {
  const cached = compiled.get(schema)
  if (cached) return cached
  const validators: Record<string, ValidateFunction> = {}
  for (const [name, property] of Object.entries(schema.properties)) {
    validators[name] = ajv.compile(property as SettingProperty & Record<string, unknown>)
  }
  compiled.set(schema, validators)
  return validators
}

/**
 * Checks a change against the plugin's schema: every value of `settings` and `secretSettings` (under
 * `where`, e.g. `body`) must be a setting of the plugin, in the right group, valid for its property. Every
 * failing setting is named; nothing is returned unless all of them pass.
 */
export function checkSettingsChange(
  schema: SettingsSchema,
  change: { settings?: Record<string, unknown>; secretSettings?: Record<string, unknown> },
  where: string,
): { result: ValidatedChange; issues: FieldIssue[] } {
  const validators = compileSettingsSchema(schema)
  const issues: FieldIssue[] = []
  const result: ValidatedChange = { settings: {}, secrets: {} }
  const groups = [
    ['settings', change.settings, false],
    ['secretSettings', change.secretSettings, true],
  ] as const
  for (const [group, values, secret] of groups) {
    for (const [name, value] of Object.entries(values ?? {})) {
      const field = `${where}.${group}.${name}`
      // Own properties only: `constructor`, `valueOf`… are not settings.
      const property = Object.hasOwn(schema.properties, name) ? schema.properties[name] : undefined
      if (!property) {
        issues.push({ field, message: 'is not a setting of this plugin' })
        continue
      }
      if (Boolean(property['x-secret']) !== secret) {
        issues.push({
          field,
          message: secret ? 'is not secret: send it in settings' : 'is secret: send it in secretSettings',
        })
        continue
      }
      // A masked secret sent back means "keep the stored one": it is not a value to check.
      if (value === null || (secret && isMasked(value))) {
        ;(secret ? result.secrets : result.settings)[name] = value as string | null
        continue
      }
      const validate = validators[name]!
      if (!validate(value)) {
        issues.push(
          ...validationDetails(field, (validate.errors ?? []) as Parameters<typeof validationDetails>[1]),
        )
        continue
      }
      ;(secret ? result.secrets : result.settings)[name] = value as string | number | boolean
    }
  }
  return { result, issues }
}
