import { Page } from '../../shared/page.tsx'

export default function Screen() {
  return <Page title="Messages">{null}</Page>
}
