/**
 * Import / export: bring a directory in (an awesome list, a spreadsheet or the JSON export; a dry run,
 * then Apply, followed to the end), see past imports, take the directory out as a file, and keep its
 * links alive. The import being followed is in the address (`?import=<id>`), so a reload keeps it.
 */
import { useRef } from 'preact/hooks'
import { Page } from '../../shared/page.tsx'
import { useQuery } from '../../shared/router.tsx'
import { ImportPanel } from './import-export-import.tsx'
import { ExportPanel, LinkHealth } from './import-export-links.tsx'
import { PastImports } from './import-export-past.tsx'
import { useEndToast, useFollowedImport } from './import-export-report.tsx'
import './transfer.css'

export default function ImportExport() {
  const [query] = useQuery()
  const shownId = query.get('import') || null
  const followed = useFollowedImport(shownId)
  // The imports queued from this page: their end is announced even if it came before the first read.
  const startedHere = useRef(new Set<string>())
  useEndToast(followed, startedHere.current)
  return (
    <Page title="Import / export">
      <ImportPanel followed={followed} onStarted={(id) => startedHere.current.add(id)} />
      <PastImports shownId={shownId} changed={`${followed?.data?.id}:${followed?.data?.status}`} />
      <div class="grid-2 transfer-columns">
        <ExportPanel />
        <LinkHealth />
      </div>
    </Page>
  )
}
