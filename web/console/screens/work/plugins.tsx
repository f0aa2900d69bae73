/**
 * A work's plugins: which are enabled for it and which is its AI provider, deployment and Git host;
 * enabled and disabled for this work alone, made the work's provider of what they offer, and given
 * settings of the work's own (`?plugin=<id>` opens them). A work uses its owner's plugins, so one the
 * owner has not enabled for their account is refused, and the tab says where to enable it. Only the owner
 * and editors see them: the API answers a viewer 403.
 */
import { useState } from 'preact/hooks'
import { ApiError, messageOf, unwrap } from '../../../shared/api.ts'
import { useResource } from '../../../shared/resource.ts'
import { Link, useQuery } from '../../../shared/router.tsx'
import { useRowAction } from '../../../shared/row-action.ts'
import { RowButton } from '../../../shared/row-button.tsx'
import { type Column, DataTable } from '../../../shared/table.tsx'
import { Notice, useToast } from '../../../shared/ui.tsx'
import { api } from '../../api.ts'
import { capabilityLabel, categoryLabel, EnabledBadge, PluginIcon } from '../../plugins/labels.tsx'
import type { PluginEntry, WorkPlugin } from '../../plugins/schema.ts'
import { WorkPluginSettings } from '../../plugins/work-settings.tsx'
import { canEdit, type WorkTabProps } from '../../work-tab.ts'
import '../../plugins/plugins.css'

/** A plugin as the work has it, with what the account's list says of it. */
type Row = WorkPlugin & Pick<PluginEntry, 'capabilities' | 'icon'> & { accountEnabled: boolean }

const NO_ICON: PluginEntry['icon'] = { type: 'emoji', value: '🧩' }

export default function Plugins({ work }: WorkTabProps) {
  const toast = useToast()
  const act = useRowAction()
  const [query] = useQuery()
  const opened = query.get('plugin')
  const owner = work.role === 'owner'
  const editable = canEdit(work)
  const [refused, setRefused] = useState<Row | null>(null)
  const plugins = useResource(
    async (signal): Promise<Row[]> => {
      const [forWork, account] = await Promise.all([
        unwrap(api.GET('/api/works/{workId}/plugins', { signal, params: { path: { workId: work.id } } })),
        unwrap(api.GET('/api/plugins', { signal })),
      ])
      const listed = new Map(account.plugins.map((plugin) => [plugin.id, plugin]))
      return forWork.plugins.map((plugin) => ({
        ...plugin,
        capabilities: listed.get(plugin.id)?.capabilities ?? [],
        icon: listed.get(plugin.id)?.icon ?? NO_ICON,
        accountEnabled: listed.get(plugin.id)?.enabled ?? false,
      }))
    },
    [work.id],
  )
  const rows = plugins.data
  const path = (plugin: Row) => ({ params: { path: { workId: work.id, pluginId: plugin.id } } })

  if (plugins.error instanceof ApiError && plugins.error.code === 'WORK_EDIT_FORBIDDEN') {
    return (
      <section aria-labelledby="plugins-title">
        <h2 id="plugins-title">Plugins</h2>
        <Notice>Only the owner and editors of “{work.name}” see and change its plugins.</Notice>
      </section>
    )
  }

  const enable = async (plugin: Row) => {
    setRefused(null)
    try {
      const entry = await unwrap(
        api.POST('/api/works/{workId}/plugins/{pluginId}/enable', { ...path(plugin), body: {} }),
      )
      toast(
        'success',
        entry.activeCapability
          ? `${plugin.name} enabled for this work, as its ${capabilityLabel(entry.activeCapability)}`
          : `${plugin.name} enabled for this work`,
      )
    } catch (error) {
      if (error instanceof ApiError && error.code === 'PLUGIN_NOT_ENABLED') setRefused(plugin)
      else toast.failed(error)
    }
    await plugins.reload()
  }

  const disable = (plugin: Row) => {
    setRefused(null)
    return act({
      ask: {
        title: `Disable ${plugin.name} for this work?`,
        message: `${plugin.name} stops being the ${plugin.activeCapability ? capabilityLabel(plugin.activeCapability) : 'provider'} of “${work.name}”, and its settings for this work stop applying (they are kept for when you enable it again). Your account’s plugin is not affected.`,
        confirmLabel: 'Disable',
        danger: true,
      },
      run: () => unwrap(api.POST('/api/works/{workId}/plugins/{pluginId}/disable', path(plugin))),
      done: `${plugin.name} disabled for this work`,
      reload: plugins.reload,
    })
  }

  const makeActive = (plugin: Row, capability: string) => {
    setRefused(null)
    return act({
      run: () =>
        unwrap(
          api.POST('/api/works/{workId}/plugins/{pluginId}/capability', {
            ...path(plugin),
            body: { capability },
          }),
        ),
      done: `${plugin.name} is now this work’s ${capabilityLabel(capability)}`,
      reload: plugins.reload,
      reloadOnFailure: true,
    })
  }

  const columns: Column<Row>[] = [
    {
      header: 'Plugin',
      cell: (plugin) => (
        <div class="plugin-name">
          <PluginIcon icon={plugin.icon} />
          <div>
            <strong>{plugin.name}</strong>
            <div class="muted small">{categoryLabel(plugin.category)}</div>
            {owner && !plugin.accountEnabled && (
              <Link class="small" href={`/plugins/${plugin.id}`}>
                Not enabled for your account
              </Link>
            )}
          </div>
        </div>
      ),
    },
    { header: 'This work', cell: (plugin) => <EnabledBadge enabled={plugin.enabled} /> },
    {
      header: 'Provider of',
      // Said above the table too, so a phone leaves it out.
      secondary: true,
      cell: (plugin) => (plugin.activeCapability ? capabilityLabel(plugin.activeCapability) : '—'),
    },
  ]
  if (editable) {
    columns.push({
      header: 'Actions',
      class: 'row-actions',
      cell: (plugin) =>
        plugin.enabled ? (
          <>
            {plugin.capabilities
              .filter((capability) => capability !== plugin.activeCapability)
              .map((capability) => (
                <RowButton
                  key={capability}
                  action={`Make ${capabilityLabel(capability)}`}
                  name={plugin.name}
                  onClick={() => makeActive(plugin, capability)}
                />
              ))}
            <Link
              class="button button-secondary"
              href={`/works/${work.id}/plugins?plugin=${plugin.id}`}
              aria-label={`${plugin.name} settings`}
            >
              Settings
            </Link>
            <RowButton action="Disable" name={plugin.name} kind="danger" onClick={() => disable(plugin)} />
          </>
        ) : (
          <RowButton action="Enable" name={plugin.name} onClick={() => enable(plugin)} />
        ),
    })
  }

  const capabilities = [...new Set((rows ?? []).flatMap((plugin) => plugin.capabilities))]
  const open = opened ? rows?.find((plugin) => plugin.id === opened) : undefined

  return (
    <section aria-labelledby="plugins-title">
      <h2 id="plugins-title">Plugins</h2>
      <p class="muted">
        A work uses its owner’s plugins, with their account settings unless it has settings of its own. Only
        one plugin at a time is the work’s provider of each thing.
      </p>
      {plugins.error !== undefined && <Notice kind="error">{messageOf(plugins.error)}</Notice>}
      {refused && <Refusal plugin={refused} owner={owner} />}
      {rows && capabilities.length > 0 && (
        <>
          <h3>Providers of this work</h3>
          <dl class="facts">
            {capabilities.map((capability) => {
              const holder = rows.find((plugin) => plugin.enabled && plugin.activeCapability === capability)
              return [
                <dt key={`${capability}-term`}>{capabilityLabel(capability)}</dt>,
                <dd key={`${capability}-value`}>{holder ? holder.name : 'None'}</dd>,
              ]
            })}
          </dl>
        </>
      )}
      <DataTable
        caption={`Plugins of ${work.name}`}
        columns={columns}
        rows={rows}
        rowKey={(plugin) => plugin.id}
        busy={plugins.loading}
        empty="Curio has no plugins."
      />
      {opened && rows && !open && <Notice kind="error">Curio has no plugin “{opened}”.</Notice>}
      {open && <WorkPluginSettings key={open.id} work={work} plugin={open} onSaved={plugins.reload} />}
    </section>
  )
}

/** Why a plugin could not be enabled for the work, and who can change that, where. */
function Refusal({ plugin, owner }: { plugin: Row; owner: boolean }) {
  return (
    <Notice kind="error">
      {plugin.name} could not be enabled for this work: a work uses its owner’s plugins, and{' '}
      {owner ? (
        <>
          {plugin.name} is not enabled for your account.{' '}
          <Link href={`/plugins/${plugin.id}`}>Enable {plugin.name} for your account</Link>, then enable it
          here.
        </>
      ) : (
        <>the owner has not enabled {plugin.name} for their account. Ask them to enable it first.</>
      )}
    </Notice>
  )
}
