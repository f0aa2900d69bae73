// Every directory table, for drizzle-kit and for queries that join across modules.

export * from './accounts/tables.ts'
export * from './auth/tables.ts'
export * from './categories/tables.ts'
export * from './clients/tables.ts'
export * from './collections/tables.ts'
export * from './companies/tables.ts'
export * from './favorites/tables.ts'
export * from './featured/tables.ts'
export * from './items/tables.ts'
export * from './notifications/tables.ts'
export * from './roles/tables.ts'
export * from './tags/tables.ts'
