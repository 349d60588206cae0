import { eq } from 'drizzle-orm'
import type { Db } from './db/database.ts'
import { tenantSettings } from './db/schema/index.ts'
import type { Clock } from './clock.ts'
import { dayIn } from './time-zone.ts'

export type TenantSettings = typeof tenantSettings.$inferSelect

/**
 * The tenant's settings row (created by the bootstrap migration), read now. The rule (docs/decisions.md "Tenant
 * settings reads"): use it inside a transaction (`tx`), where the value must be the one of the transaction's
 * snapshot because the transaction writes something it decides (a day, a number, a rule checked under a lock), and
 * where the settings themselves are answered or changed. Everywhere else, `cachedTenantSettings`.
 */
export async function readTenantSettings(db: Db): Promise<TenantSettings> {
  const found = await db.select().from(tenantSettings).where(eq(tenantSettings.id, 1))
  if (!found[0]) throw new Error('tenant_setting row 1 is missing: run the migrations')
  return found[0]
}

const SETTINGS_TTL_MS = 1000
const cache = new WeakMap<Db, { at: number; settings: TenantSettings }>()

/**
 * The settings as of at most a second ago: hot read paths skip a round trip. A change made by this process is seen
 * at once (`forgetTenantSettings`); one made by another instance within a second. The rule: the read of a request
 * or a job outside a transaction (the time zone its input is parsed in, the default page size, the expiry delay,
 * whether prices include tax); inside a transaction, `readTenantSettings(tx)`.
 */
export async function cachedTenantSettings(db: Db): Promise<TenantSettings> {
  const hit = cache.get(db)
  if (hit && Date.now() - hit.at < SETTINGS_TTL_MS) return hit.settings
  const settings = await readTenantSettings(db)
  cache.set(db, { at: Date.now(), settings })
  return settings
}

/**
 * The tenant's today: the clock's instant read as a day (yyyy-MM-dd) in the tenant's time zone, with that zone. The
 * one rule for "today" outside a transaction (the overview, the session every logged-in caller reads).
 */
export async function tenantToday(db: Db, clock: Clock): Promise<{ today: string; timeZone: string }> {
  const { timeZone } = await cachedTenantSettings(db)
  return { today: dayIn(clock.now(), timeZone), timeZone }
}

export function forgetTenantSettings(db: Db): void {
  cache.delete(db)
}

/**
 * Called inside the transaction that changes the tenant time zone: timers stored as instants (job timers, billing
 * run schedules) recompute their next firing in the new zone.
 */
export type TimeZoneListener = (tx: Db, timeZone: string) => Promise<void>
