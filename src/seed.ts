import type { Db } from './kernel/db/database.ts'
import { seedAccountsDemo } from './modules/accounts/demo-data.ts'

/** The demo tenant; each module adds its part. */
export async function seedDemo(db: Db): Promise<{ created: boolean }> {
  return seedAccountsDemo(db)
}
