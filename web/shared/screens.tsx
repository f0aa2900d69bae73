/**
 * A console's screens: each path pattern names the chunk of its screen, loaded when first opened (and kept),
 * so the first page loads only what it shows. Both consoles route with this.
 */
import type { ComponentType } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { match } from './router.tsx'
import { Button, Loading, Notice } from './ui.tsx'

/** What every screen is given: the parameters of its path (`/items/:id` → `{ id }`). */
export interface ScreenProps {
  params: Record<string, string>
}

export type ScreenLoader = () => Promise<{ default: ComponentType<ScreenProps> }>

export interface Route {
  pattern: string
  load: ScreenLoader
  /** The navigation link this path belongs to. */
  nav: string
}

const loaded = new Map<ScreenLoader, ComponentType<ScreenProps>>()

/** The route `path` opens and its parameters, if any route matches. */
export function findRoute(
  routes: readonly Route[],
  path: string,
): { route: Route; params: Record<string, string> } | undefined {
  for (const route of routes) {
    const params = match(route.pattern, path)
    if (params) return { route, params }
  }
  return undefined
}

/**
 * Starts loading the screen of the address the console opened at while it asks who is signed in, so the
 * two round trips overlap rather than follow each other.
 */
export function preloadScreen(routes: readonly Route[], path: string): void {
  const found = findRoute(routes, path)
  found?.route.load().then(
    (module) => loaded.set(found.route.load, module.default),
    () => {},
  )
}

/** Loads a screen's chunk once, then renders it. */
export function Screen({ load, params }: { load: ScreenLoader; params: Record<string, string> }) {
  const [Component, setComponent] = useState<ComponentType<ScreenProps> | undefined>(() => loaded.get(load))
  const [failed, setFailed] = useState(false)
  useEffect(() => {
    if (Component) return
    load().then(
      (module) => {
        loaded.set(load, module.default)
        setComponent(() => module.default)
      },
      () => setFailed(true),
    )
  }, [load])
  if (failed)
    return (
      <Notice kind="error">
        This screen could not be loaded; the console may have been updated.{' '}
        <Button onClick={() => window.location.reload()}>Reload</Button>
      </Notice>
    )
  return Component ? <Component params={params} /> : <Loading />
}
