import { defineConfig } from 'drizzle-kit'

export default defineConfig({
  dialect: 'postgresql',
  schema: './src/directory/tables.ts',
  out: './drizzle/directory',
  schemaFilter: ['directory'],
})
