import { OpenObject } from '../../kernel/http/schemas.ts'
import type { FastifyInstance } from 'fastify'
import { eq, sql } from 'drizzle-orm'
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
import type { ActorOf } from '../../kernel/resources/resource.routes.ts'

const GOVERNOR_KEYS = {
  maxRowsSync: 'governorMaxRowsSync',
  maxRowsAsync: 'governorMaxRowsAsync',
  maxQueryDurationSyncSec: 'governorMaxQueryDurationSyncSec',
  maxQueryDurationAsyncSec: 'governorMaxQueryDurationAsyncSec',
  maxConcurrentAsyncPerUser: 'governorMaxConcurrentAsyncPerUser',
  maxQueriesPerMinutePerUser: 'governorMaxQueriesPerMinutePerUser',
} as const

const positive = (max: number) => ({ type: 'integer', minimum: 1, maximum: max })
const entityList = { type: 'array', maxItems: 500, items: { type: 'string', minLength: 1, maxLength: 200 } }

const settingsBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    timeZone: { type: 'string', minLength: 1, maxLength: 100 },
    roundingMode: { type: 'string', enum: ['HALF_UP'] },
    pricesIncludeTax: { type: 'boolean' },
    hugeVolumeEntities: entityList,
    extractListEntities: entityList,
    queryStatementTimeoutMs: positive(3_600_000),
    defaultListLimit: positive(1000),
    prepaidReservationExpirationDelayinMillisec: positive(2_147_483_647),
    reservationSweepIntervalMs: positive(3_600_000),
    workbench: {
      type: 'object',
      additionalProperties: false,
      properties: {
        governor: {
          type: 'object',
          additionalProperties: false,
          properties: Object.fromEntries(Object.keys(GOVERNOR_KEYS).map((k) => [k, positive(100_000_000)])),
        },
        exportRetentionDays: positive(36_500),
      },
    },
  },
}

// Open: modules add settings of their own; every field settingsToWire writes is sent.
const SettingsResponse = OpenObject(
  'TenantSettings',
  'timeZone, roundingMode, pricesIncludeTax, list and query limits, workbench governor, auditable',
)

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
      governor: Object.fromEntries(Object.entries(GOVERNOR_KEYS).map(([wire, key]) => [wire, s[key]])),
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

function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone })
    return true
  } catch {
    return false
  }
}

interface SettingsBody {
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

/** Tenant settings: one record, read and partially updated. */
export function registerTenantSettingsRoutes(
  app: FastifyInstance,
  db: Db,
  actorOf: ActorOf,
  timeZoneListeners: readonly TimeZoneListener[] = [],
): void {
  app.get(
    '/api/v1/tenantSettings',
    {
      config: { policy: { role: 'api.settings.view' } },
      schema: {
        operationId: 'getTenantSettings',
        tags: ['TenantSetting'],
        summary: 'Read the tenant settings',
        response: { 200: SettingsResponse },
      },
    },
    async () => settingsToWire(await readTenantSettings(db)),
  )
  app.put(
    '/api/v1/tenantSettings',
    {
      config: { policy: { role: 'api.settings.manage' } },
      schema: {
        operationId: 'updateTenantSettings',
        tags: ['TenantSetting'],
        summary: 'Update tenant settings (partial: only the fields sent change)',
        body: settingsBody,
        response: { 200: SettingsResponse },
      },
    },
    async (request) => {
      const body = request.body as SettingsBody
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
          if (!entity?.queryable)
            problems.push({ field: `${key}[${i}]`, message: `'${name}' is not a queryable entity` })
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
      await db.transaction(async (tx) => {
        const before = await tx
          .select({ timeZone: tenantSettings.timeZone })
          .from(tenantSettings)
          .where(eq(tenantSettings.id, 1))
          .for('update')
        await tx
          .update(tenantSettings)
          .set({ ...values, updated: sql`now()`, updater: actorOf(request).username })
          .where(eq(tenantSettings.id, 1))
        const timeZone = values.timeZone
        if (timeZone !== undefined && timeZone !== before[0]?.timeZone) {
          for (const listener of timeZoneListeners) await listener(tx, timeZone)
        }
      })
      forgetTenantSettings(db)
      return settingsToWire(await readTenantSettings(db))
    },
  )
}
