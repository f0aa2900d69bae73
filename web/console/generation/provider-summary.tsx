/**
 * What the Generation tab says about the work's AI provider: which provider and model a run will use and
 * where they are changed; or, when the work has none (or it lacks its API key), what is missing in words
 * and links to where it is set: the account's plugin settings and the work's Plugins tab. Where one click
 * is enough (a provider the account has, or one whose settings the server's environment already gives),
 * the owner is offered that click here.
 */
import type { ComponentChildren } from 'preact'
import { unwrap } from '../../shared/api.ts'
import { Link } from '../../shared/router.tsx'
import { Button, useToast } from '../../shared/ui.tsx'
import { api, type Work } from '../api.ts'
import { type AccountPlugin, AI_PROVIDER, type AiProviderState } from './provider.ts'

export function ProviderSummary({
  work,
  state,
  onChanged,
}: {
  work: Work
  state: AiProviderState
  /** After a provider was enabled here: read the work's provider again. */
  onChanged: () => Promise<void>
}) {
  const pluginsTab = <Link href={`/works/${work.id}/plugins`}>the work’s Plugins tab</Link>
  if (state.kind === 'ready') {
    return (
      <div class="card provider-summary">
        <dl class="provider-facts">
          <div>
            <dt>AI provider</dt>
            <dd>{state.name}</dd>
          </div>
          {state.model && (
            <div>
              <dt>Model</dt>
              <dd>
                {state.model.name ? (
                  <>
                    <strong>{state.model.name}</strong> <span class="muted">({state.model.from})</span>
                  </>
                ) : (
                  <span class="muted">{state.model.from}</span>
                )}
              </dd>
            </div>
          )}
        </dl>
        <p class="muted small">
          A run asks {state.name} for the directory’s items. Change the provider or its model in {pluginsTab}.
        </p>
      </div>
    )
  }
  if (state.kind === 'not-configured') {
    return (
      <Missing title={`${state.name} is missing its ${list(state.missing)}`}>
        <p>
          {state.name} is this work’s AI provider, but it has no {list(state.missing)}, so it cannot be asked
          for items. Set it in <Link href={`/plugins/${state.id}`}>{state.name}’s settings</Link> (for all
          your works) or in {pluginsTab} (for this work only), then generate.
        </p>
      </Missing>
    )
  }
  const enabled = state.available.filter((plugin) => plugin.enabled)
  return (
    <Missing title="No AI provider is active for this work">
      <p>Generating asks an AI provider for the directory’s items, and this work has none yet.</p>
      {work.role !== 'owner' ? (
        <p>
          Make one of the owner’s AI providers this work’s AI provider in {pluginsTab}. The owner enables AI
          providers, with their API key, for their account under Plugins.
        </p>
      ) : enabled.length > 0 ? (
        <>
          <p>
            {list(enabled.map((plugin) => plugin.name))} {enabled.length === 1 ? 'is' : 'are'} enabled for
            your account but not for this work: make one the work’s AI provider here or in {pluginsTab}.
          </p>
          <UseButtons work={work} plugins={enabled} withAccount={false} onChanged={onChanged} />
        </>
      ) : (
        <>
          <ol class="steps">
            <li>
              Enable an AI provider for your account, with its API key:{' '}
              <ProviderLinks plugins={state.available} />.
            </li>
            <li>Make it this work’s AI provider in {pluginsTab}.</li>
          </ol>
          {/* Settings the server's environment already gives (its operator's key): nothing to type. */}
          <UseButtons
            work={work}
            plugins={state.available.filter((plugin) => plugin.configured)}
            withAccount
            onChanged={onChanged}
          />
        </>
      )}
    </Missing>
  )
}

/**
 * One button per plugin that makes it the work's AI provider, enabling it for the account first when
 * `withAccount` (its settings then come from the server's environment until the user sets their own).
 */
function UseButtons({
  work,
  plugins,
  withAccount,
  onChanged,
}: {
  work: Work
  plugins: readonly AccountPlugin[]
  withAccount: boolean
  onChanged: () => Promise<void>
}) {
  const toast = useToast()
  if (plugins.length === 0) return null
  const use = async (plugin: AccountPlugin) => {
    try {
      if (withAccount)
        await unwrap(
          api.POST('/api/plugins/{pluginId}/enable', { params: { path: { pluginId: plugin.id } }, body: {} }),
        )
      await unwrap(
        api.POST('/api/works/{workId}/plugins/{pluginId}/enable', {
          params: { path: { workId: work.id, pluginId: plugin.id } },
          body: { activeCapability: AI_PROVIDER },
        }),
      )
      toast('success', `${plugin.name} is this work’s AI provider`)
      await onChanged()
    } catch (error) {
      toast.failed(error)
    }
  }
  return (
    <div class="actions">
      {plugins.map((plugin) => (
        <Button key={plugin.id} kind="primary" onClick={() => use(plugin)}>
          {withAccount
            ? `Enable ${plugin.name} and use it for this work`
            : `Use ${plugin.name} for this work`}
        </Button>
      ))}
    </div>
  )
}

function Missing({ title, children }: { title: string; children: ComponentChildren }) {
  return (
    <section class="card provider-missing" aria-label={title}>
      <h3>{title}</h3>
      {children}
    </section>
  )
}

function ProviderLinks({ plugins }: { plugins: readonly AccountPlugin[] }) {
  if (plugins.length === 0) return <>no AI provider plugin is installed on this server</>
  return (
    <>
      {plugins.map((plugin, index) => (
        <span key={plugin.id}>
          {index > 0 && ', '}
          <Link href={`/plugins/${plugin.id}`}>{plugin.name}</Link>
        </span>
      ))}
    </>
  )
}

/** `a`, `a and b`, `a, b and c`. */
function list(names: readonly string[]): string {
  if (names.length <= 1) return names[0] ?? ''
  return `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`
}
