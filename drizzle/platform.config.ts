import { defineConfig } from 'drizzle-kit'

export default defineConfig({
  dialect: 'postgresql',
  schema: './src/platform/tables.ts',
  out: './drizzle/platform',
  schemaFilter: ['platform'],
})
