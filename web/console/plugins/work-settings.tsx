/**
 * A plugin's settings for one work: the same form as the account's, holding the work's own values, which
 * win over the account's for this work only. Each field says what the work uses when it is left empty
 * (the owner's account value, then the server's). An AI provider's model is chosen from the provider's list.
 */
import { messageOf, unwrap } from '../../shared/api.ts'
import { useResource } from '../../shared/resource.ts'
import { Link } from '../../shared/router.tsx'
import { Loading, Notice } from '../../shared/ui.tsx'
import { api, type Work } from '../api.ts'
import { canEdit } from '../work-tab.ts'
import { useModels } from './models.ts'
import {
  bodyOf,
  isEmptyChange,
  modelSetting,
  type SettingsChange,
  type WorkPlugin,
  workFallback,
} from './schema.ts'
import { SettingsForm } from './settings-form.tsx'

export function WorkPluginSettings({
  work,
  plugin,
  onSaved,
}: {
  work: Work
  plugin: WorkPlugin
  /** Reads the work's plugins again, with the settings just saved. */
  onSaved: () => Promise<void>
}) {
  const owner = work.role === 'owner'
  // The schema, and (for the owner, whose account the work uses) the account's values the work falls back to.
  const account = useResource(
    (signal) =>
      unwrap(api.GET('/api/plugins/{pluginId}', { signal, params: { path: { pluginId: plugin.id } } })),
    [plugin.id],
  )
  const details = account.data
  const models = useModels(details)
  const model = details && modelSetting(details)

  const save = async (change: SettingsChange): Promise<string> => {
    if (isEmptyChange(change)) return 'Nothing changed: no setting was edited'
    await unwrap(
      api.PATCH('/api/works/{workId}/plugins/{pluginId}/settings', {
        params: { path: { workId: work.id, pluginId: plugin.id } },
        body: bodyOf(change),
      }),
    )
    await onSaved()
    return `${plugin.name} settings of this work saved`
  }

  return (
    <section class="card work-plugin-settings" aria-labelledby="work-plugin-settings-title">
      <h3 id="work-plugin-settings-title">{plugin.name} settings for this work</h3>
      <p class="muted">
        They win over {owner ? 'your' : 'the owner’s'} account settings, for this work only.{' '}
        <Link href={`/works/${work.id}/plugins`}>Close the settings</Link>
      </p>
      {!plugin.enabled ? (
        <Notice>{plugin.name} is not enabled for this work: enable it to give it settings of its own.</Notice>
      ) : account.error !== undefined ? (
        <Notice kind="error">{messageOf(account.error)}</Notice>
      ) : !details ? (
        <Loading what="Loading the settings" />
      ) : (
        <SettingsForm
          label={`${plugin.name} settings for this work`}
          schema={details.settingsSchema}
          values={plugin.settings}
          fallback={(setting) => workFallback(setting, details, owner)}
          choices={model && models.data ? { [model.name]: models.data } : {}}
          save={save}
          submitLabel="Save work settings"
          removable
          readOnly={!canEdit(work)}
        />
      )}
    </section>
  )
}
