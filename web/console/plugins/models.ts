/**
 * An AI provider's models, asked of the provider with the account's credentials (`GET
 * /api/plugins/:id/models`), so a settings form offers them as the model's choices. Asked only when the
 * account enabled and configured the plugin (the API refuses otherwise) and its schema has a model to choose.
 */
import { unwrap } from '../../shared/api.ts'
import { type Resource, useResource } from '../../shared/resource.ts'
import { api } from '../api.ts'
import { modelSetting, type PluginDetails } from './schema.ts'

/** The model ids, or `undefined` when there is nothing to ask; `error` says why the provider did not answer. */
export function useModels(account: PluginDetails | undefined): Resource<string[] | undefined> {
  const asked = account?.enabled === true && account.configured && modelSetting(account) !== undefined
  // The account's settings (secrets masked) change when a key or address changes: the list is asked again.
  const settings = JSON.stringify(account?.settings ?? {})
  return useResource(
    async (signal) => {
      if (!asked) return undefined
      const models = await unwrap(
        api.GET('/api/plugins/{pluginId}/models', { signal, params: { path: { pluginId: account.id } } }),
      )
      return models.map((model) => model.id)
    },
    [account?.id, asked, settings],
  )
}
