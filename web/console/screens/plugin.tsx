/**
 * A plugin's page (`/plugins/:id`, and `/settings/plugins/:id` where notifications link): what it does and
 * offers, whether it is enabled for the account and has every setting it needs, and its settings form,
 * built from its settings schema. Secrets are typed once and never shown again; a setting left empty
 * falls back to the server's environment or the default, and the page says which. An AI provider's model
 * is chosen from the models the provider lists with the account's key, which also shows the key works.
 */
import { useEffect, useState } from 'preact/hooks'
import { ApiError, messageOf, unwrap } from '../../shared/api.ts'
import { Page } from '../../shared/page.tsx'
import { useResource } from '../../shared/resource.ts'
import { Link } from '../../shared/router.tsx'
import type { ScreenProps } from '../../shared/screens.tsx'
import { Button, Checkbox, Loading, Notice, useConfirm, useToast } from '../../shared/ui.tsx'
import { api } from '../api.ts'
import { capabilityLabel, categoryLabel, EnabledBadge, PluginIcon } from '../plugins/labels.tsx'
import { useModels } from '../plugins/models.ts'
import {
  accountFallback,
  bodyOf,
  isEmptyChange,
  missingSettings,
  modelSetting,
  type PluginDetails,
  type SettingsChange,
} from '../plugins/schema.ts'
import { SettingsForm } from '../plugins/settings-form.tsx'
import '../plugins/plugins.css'

export default function PluginScreen({ params }: ScreenProps) {
  const id = params.id ?? ''
  const details = useResource(
    (signal) => unwrap(api.GET('/api/plugins/{pluginId}', { signal, params: { path: { pluginId: id } } })),
    [id],
  )
  if (details.error !== undefined && !details.data) {
    const missing = details.error instanceof ApiError && details.error.status === 404
    return (
      <Page title={missing ? 'Plugin not found' : 'Plugin'}>
        <Notice kind="error">{missing ? 'Curio has no such plugin.' : messageOf(details.error)}</Notice>
        <Link href="/plugins">Back to the plugins</Link>
      </Page>
    )
  }
  if (!details.data) return <Loading what="Loading the plugin" />
  return <PluginPage details={details.data} reload={details.reload} />
}

function PluginPage({ details, reload }: { details: PluginDetails; reload: () => Promise<void> }) {
  const toast = useToast()
  const confirm = useConfirm()
  const models = useModels(details)
  const [autoEnable, setAutoEnable] = useState(details.autoEnableForWorks)
  useEffect(() => setAutoEnable(details.autoEnableForWorks), [details.autoEnableForWorks])
  const missing = missingSettings(details)
  const model = modelSetting(details)
  const path = { params: { path: { pluginId: details.id } } }
  const offers = details.capabilities.map(capabilityLabel).join(' and ')

  const disable = async () => {
    const sure = await confirm({
      title: `Disable ${details.name}?`,
      message: `${details.name} is disabled for your account and for every work you own: it stops being their ${offers}. Your settings are kept for when you enable it again.`,
      confirmLabel: 'Disable',
      danger: true,
    })
    if (!sure) return
    try {
      await unwrap(api.POST('/api/plugins/{pluginId}/disable', path))
      toast('success', `${details.name} disabled`)
    } catch (error) {
      toast.failed(error)
    }
    await reload()
  }

  const save = async (change: SettingsChange): Promise<string> => {
    // Enabling takes settings too; enabling again is how the account's choice for new works changes.
    if (!details.enabled || autoEnable !== details.autoEnableForWorks) {
      const saved = await unwrap(
        api.POST('/api/plugins/{pluginId}/enable', {
          ...path,
          body: { ...bodyOf(change), autoEnableForWorks: autoEnable },
        }),
      )
      await reload()
      if (details.enabled) return 'Settings saved'
      const stillMissing = missingSettings(saved)
      return stillMissing.length > 0
        ? `${details.name} enabled; it still needs: ${stillMissing.join(', ')}`
        : `${details.name} enabled`
    }
    if (isEmptyChange(change)) return 'Nothing changed: no setting was edited'
    await unwrap(api.PATCH('/api/plugins/{pluginId}/settings', { ...path, body: bodyOf(change) }))
    await reload()
    return 'Settings saved'
  }

  return (
    <Page
      title={details.name}
      actions={
        details.enabled && (
          <Button kind="danger" onClick={disable}>
            Disable
          </Button>
        )
      }
    >
      <p class="plugin-lead">
        <PluginIcon icon={details.icon} />
        <span>{details.description}</span>
      </p>
      <dl class="facts">
        <dt>Your account</dt>
        <dd>
          <EnabledBadge enabled={details.enabled} />
        </dd>
        <dt>Settings</dt>
        <dd>
          {missing.length > 0 ? `Missing: ${missing.join(', ')}` : 'Every required setting has a value'}
        </dd>
        <dt>Offers</dt>
        <dd>{offers}</dd>
        {categoryLabel(details.category) !== offers && (
          <>
            <dt>Category</dt>
            <dd>{categoryLabel(details.category)}</dd>
          </>
        )}
        {models.data && (
          <>
            <dt>Models</dt>
            <dd>{models.data.length} offered by the provider with these settings</dd>
          </>
        )}
        <dt>Version</dt>
        <dd>
          {details.version}
          {details.systemPlugin ? ' · used by Curio’s deploy pipeline' : ''}
        </dd>
      </dl>
      {!details.enabled && (
        <Notice>
          {details.name} is not enabled for your account: give it its settings and enable it. Your works can
          use it once it is.
        </Notice>
      )}
      {models.error !== undefined && (
        <Notice kind="error">
          The provider’s models could not be listed: {messageOf(models.error)} Check the settings below.
        </Notice>
      )}
      <section class="card" aria-labelledby="plugin-settings-title">
        <h2 id="plugin-settings-title">Settings</h2>
        <p class="muted">
          These apply to every work you own. A work can have settings of its own, which win over these: open
          it from <Link href="/works">Works</Link>, then its Plugins tab.
        </p>
        <SettingsForm
          label={`${details.name} settings`}
          schema={details.settingsSchema}
          values={details.settings}
          fallback={(setting) => accountFallback(setting, details)}
          choices={model && models.data ? { [model.name]: models.data } : {}}
          save={save}
          submitLabel={details.enabled ? 'Save settings' : 'Enable'}
          removable={details.enabled}
        >
          <Checkbox
            label="Enable it for each new work I create"
            checked={autoEnable}
            onValue={setAutoEnable}
          />
        </SettingsForm>
      </section>
      {details.readme && (
        <details class="card plugin-readme">
          <summary>About {details.name}</summary>
          <pre>{details.readme}</pre>
        </details>
      )}
    </Page>
  )
}
