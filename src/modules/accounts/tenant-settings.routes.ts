import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { Auditable } from '../../kernel/http/schemas.ts'
import type { Db } from '../../kernel/db/database.ts'
import type { ActorOf } from '../../kernel/resources/resource.routes.ts'
import { readTenantSettings, type TimeZoneListener } from '../../kernel/settings.ts'
import { GOVERNOR_KEYS, settingsToWire, updateTenantSettings, type SettingsBody } from './tenant-settings.service.ts'

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

const count = Type.Integer({ minimum: 1 })
const entities = Type.Array(Type.String(), { description: 'registry entity names' })

/** The tenant settings as answered (`settingsToWire`): every field, always sent. */
const SettingsResponse = Type.Object(
  {
    timeZone: Type.String({ description: 'IANA time zone' }),
    roundingMode: Type.String({ description: '`HALF_UP`' }),
    pricesIncludeTax: Type.Boolean(),
    hugeVolumeEntities: entities,
    extractListEntities: entities,
    queryStatementTimeoutMs: count,
    defaultListLimit: count,
    prepaidReservationExpirationDelayinMillisec: count,
    reservationSweepIntervalMs: count,
    workbench: Type.Object(
      {
        governor: Type.Object(
          Object.fromEntries(Object.keys(GOVERNOR_KEYS).map((k) => [k, count])) as Record<
            keyof typeof GOVERNOR_KEYS,
            typeof count
          >,
          { additionalProperties: false },
        ),
        exportRetentionDays: count,
      },
      { additionalProperties: false },
    ),
    auditable: Auditable,
  },
  { $id: 'TenantSettings', title: 'TenantSettings', additionalProperties: false },
)

/** Tenant settings: one record, read and partially updated (tenant-settings.service.ts). */
export function registerTenantSettingsRoutes(
  server: FastifyInstance,
  db: Db,
  actorOf: ActorOf,
  timeZoneListeners: readonly TimeZoneListener[] = [],
): void {
  const app = server.withTypeProvider<TypeBoxTypeProvider>()
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
        body: Type.Unsafe<SettingsBody>(settingsBody),
        response: { 200: SettingsResponse },
      },
    },
    async (request) => updateTenantSettings(db, request.body, actorOf(request).username, timeZoneListeners),
  )
}
