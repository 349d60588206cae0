import { eq, sql } from 'drizzle-orm'
import { withTransaction } from '../../kernel/db/transaction.ts'
import type { Db } from '../../kernel/db/database.ts'
import { tenantSettings } from '../../kernel/db/schema/index.ts'
import { validationError, type ErrorDetail } from '../../kernel/errors.ts'
import { registry } from '../../kernel/model/index.ts'
import {
  forgetTenantSettings,
  readTenantSettings,
  type TenantSettings,
  type TimeZoneListener,
} from '../../kernel/settings.ts'
import { isTimeZone } from '../../kernel/time-zone.ts'

/** The workbench governor's wire names and the settings they are stored as. */
export const GOVERNOR_KEYS = {
  maxRowsSync: 'governorMaxRowsSync',
  maxRowsAsync: 'governorMaxRowsAsync',
  maxQueryDurationSyncSec: 'governorMaxQueryDurationSyncSec',
  maxQueryDurationAsyncSec: 'governorMaxQueryDurationAsyncSec',
  maxConcurrentAsyncPerUser: 'governorMaxConcurrentAsyncPerUser',
  maxQueriesPerMinutePerUser: 'governorMaxQueriesPerMinutePerUser',
  maxExportMegabytes: 'governorMaxExportMegabytes',
} as const

/** A change of the tenant settings as the API takes it (every field optional: only those sent change). */
export interface SettingsBody {
  timeZone?: string
  roundingMode?: string
  pricesIncludeTax?: boolean
  hugeVolumeEntities?: string[]
  extractListEntities?: string[]
  queryStatementTimeoutMs?: number
  defaultListLimit?: number
  prepaidReservationExpirationDelayinMillisec?: number
  reservationSweepIntervalMs?: number
  workbench?: { governor?: Partial<Record<keyof typeof GOVERNOR_KEYS, number>>; exportRetentionDays?: number }
}

/** The settings as the API shows them. */
export function settingsToWire(s: TenantSettings) {
  return {
    timeZone: s.timeZone,
    roundingMode: s.roundingMode,
    pricesIncludeTax: s.pricesIncludeTax,
    hugeVolumeEntities: s.hugeVolumeEntities,
    extractListEntities: s.extractListEntities,
    queryStatementTimeoutMs: s.queryStatementTimeoutMs,
    defaultListLimit: s.defaultListLimit,
    prepaidReservationExpirationDelayinMillisec: s.prepaidReservationExpirationDelayMs,
    reservationSweepIntervalMs: s.reservationSweepIntervalMs,
    workbench: {
      governor: Object.fromEntries(Object.entries(GOVERNOR_KEYS).map(([wire, key]) => [wire, s[key]])) as Record<
        keyof typeof GOVERNOR_KEYS,
        number
      >,
      exportRetentionDays: s.workbenchExportRetentionDays,
    },
    auditable: {
      created: s.created.toISOString(),
      updated: s.updated?.toISOString() ?? null,
      creator: s.creator,
      updater: s.updater,
    },
  }
}

/**
 * Applies a partial change: the time zone must be an IANA zone, the entity lists name queryable entities (stored by
 * their registry names, each once); every problem is reported at once and nothing changes. The row is locked while
 * it changes, and a new time zone is passed to the listeners (timers recomputed) in the same transaction.
 */
export async function updateTenantSettings(
  db: Db,
  body: SettingsBody,
  updater: string,
  timeZoneListeners: readonly TimeZoneListener[],
): Promise<ReturnType<typeof settingsToWire>> {
  const problems: ErrorDetail[] = []
  const values: Partial<typeof tenantSettings.$inferInsert> = {}
  if (body.timeZone !== undefined) {
    if (isTimeZone(body.timeZone)) values.timeZone = body.timeZone
    else problems.push({ field: 'timeZone', message: 'expected an IANA time zone such as Europe/Paris or UTC' })
  }
  if (body.roundingMode !== undefined) values.roundingMode = body.roundingMode
  if (body.pricesIncludeTax !== undefined) values.pricesIncludeTax = body.pricesIncludeTax
  for (const key of ['hugeVolumeEntities', 'extractListEntities'] as const) {
    const names = body[key]
    if (names === undefined) continue
    const resolved: string[] = []
    names.forEach((name, i) => {
      const entity = registry.find(name)
      if (!entity?.queryable) problems.push({ field: `${key}[${i}]`, message: `'${name}' is not a queryable entity` })
      else if (!resolved.includes(entity.name)) resolved.push(entity.name)
    })
    values[key] = resolved
  }
  if (body.queryStatementTimeoutMs !== undefined) values.queryStatementTimeoutMs = body.queryStatementTimeoutMs
  if (body.defaultListLimit !== undefined) values.defaultListLimit = body.defaultListLimit
  if (body.prepaidReservationExpirationDelayinMillisec !== undefined) {
    values.prepaidReservationExpirationDelayMs = body.prepaidReservationExpirationDelayinMillisec
  }
  if (body.reservationSweepIntervalMs !== undefined) {
    values.reservationSweepIntervalMs = body.reservationSweepIntervalMs
  }
  for (const [wire, key] of Object.entries(GOVERNOR_KEYS)) {
    const value = body.workbench?.governor?.[wire as keyof typeof GOVERNOR_KEYS]
    if (value !== undefined) values[key] = value
  }
  if (body.workbench?.exportRetentionDays !== undefined)
    values.workbenchExportRetentionDays = body.workbench.exportRetentionDays
  if (problems.length > 0) throw validationError(problems)
  await withTransaction(db, async (tx) => {
    const before = await tx
      .select({ timeZone: tenantSettings.timeZone })
      .from(tenantSettings)
      .where(eq(tenantSettings.id, 1))
      .for('update')
    await tx
      .update(tenantSettings)
      .set({ ...values, updated: sql`now()`, updater: updater })
      .where(eq(tenantSettings.id, 1))
    const timeZone = values.timeZone
    if (timeZone !== undefined && timeZone !== before[0]?.timeZone) {
      for (const listener of timeZoneListeners) await listener(tx, timeZone)
    }
  })
  forgetTenantSettings(db)
  return settingsToWire(await readTenantSettings(db))
}
