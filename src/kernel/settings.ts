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

const SETTINGS_TTL_MS = 1000
const cache = new WeakMap<Db, { at: number; settings: TenantSettings }>()

/**
 * The settings as of at most a second ago: hot read paths skip a round trip. A change made by this process is seen
 * at once (`forgetTenantSettings`); one made by another instance within a second.
 */
export async function cachedTenantSettings(db: Db): Promise<TenantSettings> {
  const hit = cache.get(db)
  if (hit && Date.now() - hit.at < SETTINGS_TTL_MS) return hit.settings
  const settings = await readTenantSettings(db)
  cache.set(db, { at: Date.now(), settings })
  return settings
}

export function forgetTenantSettings(db: Db): void {
  cache.delete(db)
}

/**
 * Called inside the transaction that changes the tenant time zone: timers stored as instants (job timers, billing
 * run schedules) recompute their next firing in the new zone.
 */
export type TimeZoneListener = (tx: Db, timeZone: string) => Promise<void>
