/**
 * Located items on a map of the world's land, drawn on a canvas from Natural Earth's 1:110m outline
 * (world-atlas, bundled: no tiles are fetched from anywhere). This module is its own chunk, loaded only
 * where a map is shown. The picture is described by its label; the places are listed beside it.
 */

import { useEffect, useRef } from 'preact/hooks'
import { feature } from 'topojson-client'
import type { GeometryCollection, Topology } from 'topojson-specification'
import land from 'world-atlas/land-110m.json'

export interface MapPoint {
  latitude: number
  longitude: number
}

type Ring = number[][]

function rings(): Ring[] {
  const topology = land as unknown as Topology<{ land: GeometryCollection }>
  const shapes = feature(topology, topology.objects.land)
  const out: Ring[] = []
  for (const shape of shapes.features) {
    const geometry = shape.geometry
    if (geometry.type === 'Polygon') out.push(...(geometry.coordinates as Ring[]))
    if (geometry.type === 'MultiPolygon')
      for (const polygon of geometry.coordinates as Ring[][]) out.push(...polygon)
  }
  return out
}

let landRings: Ring[] | undefined

export default function WorldMap({ points, label }: { points: readonly MapPoint[]; label: string }) {
  const canvas = useRef<HTMLCanvasElement>(null)
  useEffect(() => {
    const element = canvas.current
    const context = element?.getContext('2d')
    if (!element || !context) return
    const ratio = window.devicePixelRatio || 1
    const width = element.clientWidth
    const height = Math.round(width / 2)
    element.width = width * ratio
    element.height = height * ratio
    element.style.height = `${height}px`
    context.scale(ratio, ratio)
    // Equirectangular: longitude and latitude straight to x and y.
    const x = (lng: number) => ((lng + 180) / 360) * width
    const y = (lat: number) => ((90 - lat) / 180) * height
    const styles = getComputedStyle(element)
    context.fillStyle = styles.getPropertyValue('--map-land').trim() || '#d8dee6'
    landRings ??= rings()
    for (const ring of landRings) {
      context.beginPath()
      for (const [i, [lng = 0, lat = 0]] of ring.entries()) {
        if (i === 0) context.moveTo(x(lng), y(lat))
        else context.lineTo(x(lng), y(lat))
      }
      context.closePath()
      context.fill()
    }
    context.fillStyle = styles.getPropertyValue('--map-point').trim() || '#1f5fbf'
    const radius = points.length > 5000 ? 1.2 : points.length > 500 ? 2 : 3
    for (const point of points) {
      context.beginPath()
      context.arc(x(point.longitude), y(point.latitude), radius, 0, Math.PI * 2)
      context.fill()
    }
  }, [points])
  return <canvas ref={canvas} class="world-map" role="img" aria-label={label} />
}
