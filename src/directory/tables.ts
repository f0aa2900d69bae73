// Every directory table, for drizzle-kit and for queries that join across modules.

export * from './accounts/tables.ts'
export * from './auth/tables.ts'
export * from './categories/tables.ts'
export * from './clients/tables.ts'
export * from './favorites/tables.ts'
export * from './featured/tables.ts'
export * from './roles/tables.ts'
