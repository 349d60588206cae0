import type { Db } from './kernel/db/database.ts'
import { seedAccountsDemo } from './modules/accounts/index.ts'
import { seedCatalogDemo } from './modules/catalog/index.ts'
import { seedBillingRunsDemo } from './modules/billing-runs/index.ts'
import { seedOrderingDemo } from './modules/ordering/index.ts'

/** The demo tenant; each module adds its part. */
export async function seedDemo(db: Db): Promise<{ created: boolean }> {
  const accounts = await seedAccountsDemo(db)
  await seedCatalogDemo(db)
  await seedOrderingDemo(db)
  await seedBillingRunsDemo(db)
  return accounts
}
