import { render } from 'preact'
import '../shared/styles.css'
import { setBase } from '../shared/router.tsx'
import { App } from './app.tsx'

setBase(import.meta.env.BASE_URL)
const root = document.getElementById('app')
if (root) render(<App />, root)
