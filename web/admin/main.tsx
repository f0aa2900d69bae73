import { render } from 'preact'
import '../shared/styles.css'
import { currentPath, setBase } from '../shared/router.tsx'
import { App, preloadAdminScreen } from './app.tsx'

setBase(import.meta.env.BASE_URL)
preloadAdminScreen(currentPath())
const root = document.getElementById('app')
if (root) render(<App />, root)
