/**
 * Plugins: every plugin Curio has (an AI provider that generates items, GitHub that holds a website's code,
 * Vercel that hosts it), what each offers, whether it is enabled for the account and has every setting it
 * needs; enabled and disabled here, set up on its own page.
 */
import { messageOf, unwrap } from '../../shared/api.ts'
import { Page } from '../../shared/page.tsx'
import { useResource } from '../../shared/resource.ts'
import { Link } from '../../shared/router.tsx'
import { useRowAction } from '../../shared/row-action.ts'
import { RowButton } from '../../shared/row-button.tsx'
import { type Column, DataTable } from '../../shared/table.tsx'
import { Notice, useToast } from '../../shared/ui.tsx'
import { api } from '../api.ts'
import { capabilityLabel, categoryLabel, EnabledBadge, PluginIcon } from '../plugins/labels.tsx'
import type { PluginEntry } from '../plugins/schema.ts'
import '../plugins/plugins.css'

export default function Plugins() {
  const act = useRowAction()
  const toast = useToast()
  const list = useResource((signal) => unwrap(api.GET('/api/plugins', { signal })), [])
  const path = (plugin: PluginEntry) => ({ params: { path: { pluginId: plugin.id } } })

  const enable = async (plugin: PluginEntry) => {
    try {
      const enabled = await unwrap(api.POST('/api/plugins/{pluginId}/enable', { ...path(plugin), body: {} }))
      toast(
        'success',
        enabled.configured
          ? `${plugin.name} enabled`
          : `${plugin.name} enabled; it still needs its settings: open it to give them`,
      )
    } catch (error) {
      toast.failed(error)
    }
    await list.reload()
  }

  const disable = (plugin: PluginEntry) =>
    act({
      ask: {
        title: `Disable ${plugin.name}?`,
        message: `${plugin.name} is disabled for your account and for every work you own: it stops being their ${plugin.capabilities.map(capabilityLabel).join(' and ')}. Your settings are kept for when you enable it again.`,
        confirmLabel: 'Disable',
        danger: true,
      },
      run: () => unwrap(api.POST('/api/plugins/{pluginId}/disable', path(plugin))),
      done: `${plugin.name} disabled`,
      reload: list.reload,
    })

  const columns: Column<PluginEntry>[] = [
    {
      header: 'Plugin',
      cell: (plugin) => (
        <div class="plugin-name">
          <PluginIcon icon={plugin.icon} />
          <div>
            <Link href={`/plugins/${plugin.id}`}>
              <strong>{plugin.name}</strong>
            </Link>
            <div class="muted small">{plugin.description}</div>
          </div>
        </div>
      ),
    },
    { header: 'Category', secondary: true, cell: (plugin) => categoryLabel(plugin.category) },
    {
      header: 'Offers',
      secondary: true,
      cell: (plugin) => plugin.capabilities.map(capabilityLabel).join(', '),
    },
    { header: 'Your account', cell: (plugin) => <EnabledBadge enabled={plugin.enabled} /> },
    {
      header: 'Settings',
      cell: (plugin) =>
        plugin.configured ? (
          'Complete'
        ) : (
          <Link href={`/plugins/${plugin.id}`} aria-label={`${plugin.name} needs settings`}>
            Needs settings
          </Link>
        ),
    },
    {
      header: 'Actions',
      class: 'row-actions',
      cell: (plugin) =>
        plugin.enabled ? (
          <RowButton action="Disable" name={plugin.name} kind="danger" onClick={() => disable(plugin)} />
        ) : (
          <RowButton action="Enable" name={plugin.name} onClick={() => enable(plugin)} />
        ),
    },
  ]

  return (
    <Page title="Plugins">
      <p class="muted">
        Plugins connect Curio to the services a work needs. Enable one for your account and give it its
        settings; a work then uses it from its own Plugins tab, where it can also have settings of its own.
      </p>
      {list.error !== undefined && <Notice kind="error">{messageOf(list.error)}</Notice>}
      <DataTable
        caption="Plugins"
        columns={columns}
        rows={list.data?.plugins}
        rowKey={(plugin) => plugin.id}
        busy={list.loading}
        empty="Curio has no plugins."
      />
    </Page>
  )
}
