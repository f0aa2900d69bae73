/**
 * Settings: the site's typed settings, its navigation menus, what the location features have to work
 * with (and the location index), and the CRM connection with its sync. The tab lives in the query
 * string (`?tab=site|navigation|location|crm`), so each can be linked to and reloaded.
 */
import { Page } from '../../shared/page.tsx'
import { useQuery } from '../../shared/router.tsx'
import { Tabs } from '../../shared/ui.tsx'
import { CrmSettings } from './settings-crm.tsx'
import { LocationSettings } from './settings-location.tsx'
import { NavigationSettings } from './settings-navigation.tsx'
import { SiteSettings } from './settings-site.tsx'
import './settings.css'

const TABS = [
  { value: 'site', label: 'Site' },
  { value: 'navigation', label: 'Navigation' },
  { value: 'location', label: 'Location' },
  { value: 'crm', label: 'CRM' },
] as const

type Tab = (typeof TABS)[number]['value']

const isTab = (value: string | null): value is Tab => TABS.some((tab) => tab.value === value)

export default function Settings() {
  const [query, setQuery] = useQuery()
  const asked = query.get('tab')
  const tab: Tab = isTab(asked) ? asked : 'site'
  const label = TABS.find((t) => t.value === tab)?.label ?? 'Site'

  return (
    <Page title="Settings">
      <Tabs
        label="Settings"
        tabs={TABS}
        current={tab}
        // The CRM sync list's filter and page belong to its tab: another tab starts without them.
        onSelect={(value) => setQuery({ tab: value, status: undefined, page: undefined }, { push: true })}
      />
      <div role="tabpanel" aria-label={label} class="settings-panel">
        {tab === 'site' && <SiteSettings />}
        {tab === 'navigation' && <NavigationSettings />}
        {tab === 'location' && <LocationSettings />}
        {tab === 'crm' && <CrmSettings />}
      </div>
    </Page>
  )
}
