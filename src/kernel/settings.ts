import { eq } from 'drizzle-orm'
import type { Db } from './db/database.ts'
import { tenantSettings } from './db/schema/index.ts'

export type TenantSettings = typeof tenantSettings.$inferSelect

/** The tenant's settings row (created by the bootstrap migration). */
export async function readTenantSettings(db: Db): Promise<TenantSettings> {
  const found = await db.select().from(tenantSettings).where(eq(tenantSettings.id, 1))
  if (!found[0]) throw new Error('tenant_setting row 1 is missing: run the migrations')
  return found[0]
}
