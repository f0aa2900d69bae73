/**
 * Searching and paging a work's items in the browser: the API answers them all at once (a generation keeps
 * at most a thousand), so a search over name, description, category and tags, and a page of them, cost
 * no round trip; only the page's rows are drawn.
 */
import { useMemo } from 'preact/hooks'
import type { Answer } from '../api.ts'

export type WorkItem = Answer<'/api/works/{id}/items'>['items'][number]

export const ITEMS_PER_PAGE = 50

/** Lower case, without accents: "Café" is found by "cafe". */
const fold = (text: string) => text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase()

/** The items that match every word of `search` and `category`, and the page of them to show. */
export function useItemSearch(
  items: readonly WorkItem[] | undefined,
  { search, category, page }: { search: string; category: string; page: number },
) {
  const haystacks = useMemo(
    () =>
      (items ?? []).map((item) =>
        fold([item.name, item.description, item.category, ...item.tags].join('\n')),
      ),
    [items],
  )
  const categories = useMemo(
    () => [...new Set((items ?? []).map((item) => item.category))].sort((a, b) => a.localeCompare(b)),
    [items],
  )
  const matching = useMemo(() => {
    const words = fold(search).split(/\s+/).filter(Boolean)
    return (items ?? []).filter(
      (item, index) =>
        (!category || item.category === category) && words.every((word) => haystacks[index]?.includes(word)),
    )
  }, [items, haystacks, search, category])
  const totalPages = Math.max(1, Math.ceil(matching.length / ITEMS_PER_PAGE))
  const shownPage = Math.min(Math.max(1, page), totalPages)
  const start = (shownPage - 1) * ITEMS_PER_PAGE
  return {
    categories,
    matching,
    page: shownPage,
    totalPages,
    rows: matching.slice(start, start + ITEMS_PER_PAGE),
    first: matching.length === 0 ? 0 : start + 1,
  }
}
