// Lists a directory’s published items, page by page. Run: CURIO_DIRECTORY_URL=… npm exec -- node list-items.ts
import { createDirectoryClient } from '@curio/client'

const directory = createDirectoryClient({
  baseUrl: process.env.CURIO_DIRECTORY_URL ?? 'http://localhost:3001',
})

let page = 1
let shown = 0
for (;;) {
  const { data, error } = await directory.GET('/api/items', { params: { query: { page, limit: 100 } } })
  if (error) throw new Error(`${error.code}: ${error.error}`)
  for (const item of data.data) console.log(`${item.name}\t${item.url ?? ''}`)
  shown += data.data.length
  if (page >= data.meta.totalPages) break
  page++
}
console.log(`${shown} published items`)
