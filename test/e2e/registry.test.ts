import { describe, expect, it } from 'vitest'
import { sql } from 'drizzle-orm'
import { getTableConfig } from 'drizzle-orm/pg-core'
import { rows } from '../../src/kernel/db/database.ts'
import { registry } from '../../src/kernel/model/index.ts'
import { useTestDatabase } from '../support/test-database.ts'

const db = useTestDatabase()

/** Tables of the migration, read-position and catalog-generation bookkeeping; everything else in public must be an entity. */
const INFRASTRUCTURE = new Set([
  'public.obol_schema_migration',
  'public.obol_read_position',
  'public.obol_catalog_generation',
])

describe('entity registry', () => {
  it('declares every table of the migrated database, and only those', async () => {
    const tables = await rows<{ name: string }>(
      db.current.db,
      sql`select table_schema || '.' || table_name as name from information_schema.tables
        where table_schema in ('public', 'obol_secrets') and table_type = 'BASE TABLE'
          and not exists (select 1 from pg_class c join pg_namespace n on n.oid = c.relnamespace
            where n.nspname = table_schema and c.relname = table_name and c.relispartition)`,
    )
    const inDatabase = tables
      .map((t) => t.name)
      .filter((name) => !INFRASTRUCTURE.has(name))
      .sort()
    expect(registry.entities.map((e) => `${e.schema}.${e.tableName}`).sort()).toEqual(inDatabase)
  })

  it.each(registry.entities.map((e) => [e.name, e] as const))(
    '%s matches its table column by column',
    async (_name, entity) => {
      const columns = await rows<{ column_name: string; is_nullable: string }>(
        db.current.db,
        sql`select column_name, is_nullable from information_schema.columns where table_schema = ${entity.schema} and table_name = ${entity.tableName}`,
      )
      const declared = new Map<string, boolean>()
      for (const f of entity.fields.values()) declared.set(f.column, f.nullable)
      for (const r of entity.relations.values()) if (r.kind === 'manyToOne') declared.set(r.column!, r.nullable)
      expect([...declared.keys()].sort()).toEqual(columns.map((c) => c.column_name).sort())
      for (const c of columns)
        expect(declared.get(c.column_name), `${entity.tableName}.${c.column_name}`).toBe(c.is_nullable === 'YES')
    },
  )

  it.each(registry.entities.map((e) => [e.name, e] as const))(
    '%s declares exactly the foreign keys of its table',
    async (_name, entity) => {
      const fks = await rows<{ column_name: string; target: string }>(
        db.current.db,
        // From the catalog: a partitioned table's partitions carry constraints of the same names.
        sql`select a.attname as column_name, target.relname as target
        from pg_constraint c
        join pg_class t on t.oid = c.conrelid
        join pg_namespace n on n.oid = t.relnamespace
        join pg_class target on target.oid = c.confrelid
        join pg_attribute a on a.attrelid = c.conrelid and a.attnum = c.conkey[1]
        where c.contype = 'f' and n.nspname = ${entity.schema} and t.relname = ${entity.tableName}`,
      )
      const declared = [...entity.relations.values()]
        .filter((r) => r.kind === 'manyToOne')
        .map((r) => ({ column_name: r.column!, target: registry.get(r.target).tableName }))
      // Self references and soft links (parent units, parent sellers) are relations without a database constraint.
      const constrained = getTableConfig(entity.table).foreignKeys.length
      expect(fks.length).toBe(constrained)
      for (const fk of fks) expect(declared).toContainEqual(fk)
    },
  )

  it('keeps every table of the secrets schema out of the query layer', () => {
    const secrets = registry.entities.filter((e) => e.schema === 'obol_secrets')
    expect(secrets.map((e) => e.name).sort()).toEqual([
      'AuthThrottle',
      'BootstrapState',
      'ClientSecret',
      'PortalSession',
      'SigningKey',
      'UserCredential',
      'WebhookSecret',
    ])
    for (const entity of secrets) expect(entity.queryable).toBe(false)
  })

  it('resolves entity tokens in every spelling and subclasses by name', () => {
    for (const token of [
      'billingAccount',
      'BillingAccount',
      'billingaccount',
      'org.obol.model.billing.BillingAccount',
    ]) {
      expect(registry.find(token)?.name).toBe('BillingAccount')
    }
    expect(registry.findSubclass('CalendarYearly')).toMatchObject({ value: 'YEARLY' })
    expect(registry.find('nothing')).toBeUndefined()
    expect(registry.find('pricePlanMatrixVersion')?.name).toBe('PricingVersion')
    expect(registry.find('charge')?.name).toBe('ChargeTemplate')
  })

  it('gives every business entity a seller path that resolves to Seller', () => {
    for (const entity of registry.entities.filter((e) => e.business)) {
      let current = entity
      for (const step of (entity.sellerPath ?? '').split('.').filter(Boolean)) {
        const rel = current.relations.get(step)
        expect(rel?.kind, `${entity.name}.${step}`).toBe('manyToOne')
        current = registry.get(rel!.target)
      }
      expect(current.name).toBe('Seller')
    }
  })
})
