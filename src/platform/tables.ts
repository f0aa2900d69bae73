// Every platform table, for drizzle-kit and for queries that join across modules.
export * from './activity-log/tables.ts'
export * from './api-keys/tables.ts'
export * from './auth/tables.ts'
export * from './generation/tables.ts'
export * from './instance/tables.ts'
export * from './notifications/tables.ts'
export * from './plugins/tables.ts'
export * from './works/tables.ts'
