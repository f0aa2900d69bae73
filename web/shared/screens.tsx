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

export type ScreenLoader = ChunkLoader<ScreenProps>

export interface Route {
  pattern: string
  load: ScreenLoader
  /** The navigation link this path belongs to. */
  nav: string
}

/** A chunk's default export: a component, loaded once by its loader and kept. */
export type ChunkLoader<P> = () => Promise<{ default: ComponentType<P> }>

// Keyed by each loader function: the route tables hold one per chunk for the page's life. Each entry's
// component takes the props its loader's type says (the map cannot say so per entry).
const loaded = new Map<unknown, unknown>()

/** Starts loading a chunk (a screen, a tab) so it is there by the time it shows. */
export function preload<P>(load: ChunkLoader<P>): void {
  if (loaded.has(load)) return
  load().then(
    (module) => loaded.set(load, module.default),
    () => {},
  )
}

/** The chunk's component once loaded (at once when it was before), and whether loading failed. */
export function useChunk<P>(load: ChunkLoader<P>): {
  Component: ComponentType<P> | undefined
  failed: boolean
} {
  const [Component, setComponent] = useState(() => loaded.get(load) as ComponentType<P> | undefined)
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
  return { Component, failed }
}

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
  if (found) preload(found.route.load)
}

/** Loads a screen's chunk once, then renders it. */
export function Screen({ load, params }: { load: ScreenLoader; params: Record<string, string> }) {
  const { Component, failed } = useChunk(load)
  if (failed)
    return (
      <Notice kind="error">
        This screen could not be loaded; the console may have been updated.{' '}
        <Button onClick={() => window.location.reload()}>Reload</Button>
      </Notice>
    )
  return Component ? <Component params={params} /> : <Loading />
}
