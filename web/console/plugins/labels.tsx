/** How the console names plugins' categories and capabilities, and draws their icons. */
import type { PluginEntry } from './schema.ts'

const CAPABILITIES: Record<string, string> = {
  'ai-provider': 'AI provider',
  deploy: 'Deployment',
  'git-host': 'Git host',
}

const CATEGORIES: Record<string, string> = {
  'ai-provider': 'AI provider',
  deployment: 'Deployment',
  git: 'Git',
}

/** `git-host` → "Git host"; one the console does not know reads as its id with spaces. */
const spelled = (id: string) => {
  const words = id.replace(/-/g, ' ')
  return words.charAt(0).toUpperCase() + words.slice(1)
}

export const capabilityLabel = (capability: string) => CAPABILITIES[capability] ?? spelled(capability)
export const categoryLabel = (category: string) => CATEGORIES[category] ?? spelled(category)

/** The plugin's icon beside its name (decorative: the name says which plugin it is). */
export function PluginIcon({ icon }: { icon: PluginEntry['icon'] }) {
  if (icon.type === 'emoji')
    return (
      <span class="plugin-icon" aria-hidden="true">
        {icon.value}
      </span>
    )
  // An inline SVG is drawn as an image, so its markup never runs in the page.
  const src =
    icon.type === 'svg' ? `data:image/svg+xml;charset=utf-8,${encodeURIComponent(icon.value)}` : icon.value
  return <img class="plugin-icon" src={src} alt="" width={24} height={24} />
}

/** Enabled or not, as a badge. */
export function EnabledBadge({ enabled }: { enabled: boolean }) {
  return (
    <span class={`status status-${enabled ? 'active' : 'off'}`}>{enabled ? 'Enabled' : 'Not enabled'}</span>
  )
}
