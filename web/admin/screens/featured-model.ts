/**
 * What the featured shelf's screen and both of its forms share: an entry as the API answers it, the dates
 * as the browser's `datetime-local` takes them, the order as typed, and the fields a refusal may name.
 */
import type { Answer } from '../api.ts'

export type Entry = Answer<'/api/admin/featured-items'>['data'][number]

/** An ISO date-time as a `datetime-local` value, in the browser's time zone. */
export function toLocalInput(iso: string | null): string {
  if (!iso) return ''
  const date = new Date(iso)
  if (Number.isNaN(date.getTime())) return ''
  const pad = (n: number) => String(n).padStart(2, '0')
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`
}

/** A `datetime-local` value as an ISO date-time (what the API takes); what is not a date is sent as typed. */
export function fromLocalInput(value: string): string {
  const date = new Date(value)
  return Number.isNaN(date.getTime()) ? value : date.toISOString()
}

/** `featuredOrder` as typed: a number, or the text itself so that the API names what is wrong with it. */
export function orderOf(value: string): number {
  return value.trim() === '' ? 0 : Number(value)
}

/** The fields a refusal may name, shown next to their inputs. */
export const FIELDS = [
  'itemSlug',
  'itemName',
  'itemDescription',
  'itemIconUrl',
  'itemImageUrl',
  'featuredOrder',
  'isActive',
  'featuredAt',
  'featuredUntil',
]
