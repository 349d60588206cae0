import { defineConfig } from 'drizzle-kit'

export default defineConfig({
  dialect: 'postgresql',
  schema: './src/kernel/db/schema/index.ts',
  out: './migrations',
})
