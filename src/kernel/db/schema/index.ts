export * from './reference.ts'
export * from './accounts.ts'
export * from './settings.ts'
export * from './jobs.ts'
