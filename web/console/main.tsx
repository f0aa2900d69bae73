import { render } from 'preact'
import '../shared/styles.css'
import './console.css'
import { setTitleSuffix } from '../shared/page.tsx'
import { currentPath, setBase } from '../shared/router.tsx'
import { preloadScreen } from '../shared/screens.tsx'
import { App } from './app.tsx'
import { ROUTES } from './routes.ts'

setBase(import.meta.env.BASE_URL)
setTitleSuffix('Curio')
preloadScreen(ROUTES, currentPath())
const root = document.getElementById('app')
if (root) render(<App />, root)
