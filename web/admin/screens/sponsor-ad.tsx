import { Page } from '../../shared/page.tsx'

export default function Screen() {
  return <Page title="Sponsor ad">{null}</Page>
}
