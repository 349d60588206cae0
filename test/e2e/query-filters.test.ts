import { beforeAll, describe, expect, it } from 'vitest'
import { sql } from 'drizzle-orm'
import { PgDialect } from 'drizzle-orm/pg-core'
import { rows } from '../../src/kernel/db/database.ts'
import { forgetTenantSettings } from '../../src/kernel/settings.ts'
import type { Principal } from '../../src/kernel/http/principal.ts'
import { registry } from '../../src/kernel/model/index.ts'
import { seedAccountsDemo } from '../../src/modules/accounts/demo-data.ts'
import {
  buildQuery,
  compileCount,
  createQueryEngine,
  type CustomFieldTemplate,
  type QueryEngine,
} from '../../src/modules/query/index.ts'
import { parseJsonExact } from '../../src/modules/query/json-text.ts'
import { loadSqlParser } from '../../src/modules/query/raw-sql.ts'
import { useTestDatabase } from '../support/test-database.ts'

/**
 * The filter grammar of the Query API (§2.6, §2.7, DECISIONS "Query API"): for every key pattern and rule, the
 * statement the compiler writes (golden, parameters apart) and the rows PostgreSQL returns for the demo data.
 */

const db = useTestDatabase()
const dialect = new PgDialect()
let engine: QueryEngine
let templates: CustomFieldTemplate[] = []

const EXPERT: Principal = {
  subject: 'expert',
  username: 'expert',
  clientId: undefined,
  roles: new Set(['queryUser', 'queryExpert']),
  groups: [],
  sellerCodes: null,
}
const USER: Principal = { ...EXPERT, subject: 'user', username: 'user', roles: new Set(['queryUser']) }

/** The demo tenant, plus a second seller, dated customers and custom fields of every declared type. */
const FIXTURES = [
  `insert into seller (code, description, parent_seller_id, creator) select 'OTHER', 'Another seller', id, 'test' from seller where code = 'MAIN'`,
  `insert into customer (code, name, seller_id, creator) select c.code, c.name, s.id, 'test' from seller s, (values ('CUST_X1', 'Xena Other'), ('CUST_X2', 'Yuri Other')) as c(code, name) where s.code = 'OTHER'`,
  `insert into customer_account (code, name, customer_id, creator) select 'CA_X1', 'Xena Other', id, 'test' from customer where code = 'CUST_X1'`,
  `insert into billing_account (code, name, customer_account_id, billing_cycle_id, country_id, language_id, trading_currency_id, creator)
     select 'BA_X1', 'Xena Other', ca.id, cyc.id, co.id, l.id, cur.id, 'test' from customer_account ca, billing_cycle cyc, country co, language l, trading_currency cur
     where ca.code = 'CA_X1' and cyc.code = 'CYC_MONTHLY' and co.code = 'FR' and l.code = 'ENG' and cur.code = 'EUR'`,
  `insert into user_account (code, name, billing_account_id, creator) select 'UA_X1', 'Xena Other', id, 'test' from billing_account where code = 'BA_X1'`,
  `update customer set created = '2025-01-01T12:00:00Z'`,
  `update customer set created = '2026-03-01T00:00:00Z', updated = '2026-04-01T00:00:00Z' where code = 'CUST_001'`,
  `update customer set created = '2026-03-01T23:30:00Z', updated = '2026-03-15T00:00:00Z' where code = 'CUST_002'`,
  `update customer set created = '2026-03-02T00:00:00Z' where code = 'CUST_003'`,
  `update customer set created = '2026-02-28T23:59:59Z' where code = 'CUST_004'`,
  `insert into custom_field_template (code, applies_to, field_type, storage_type, value_required, creator) values
     ('CF_SINCE', 'Customer', 'DATE', 'SINGLE', false, 'test'), ('CF_VIP', 'Customer', 'BOOLEAN', 'SINGLE', true, 'test'),
     ('CF_MANAGER', 'Customer', 'ENTITY', 'SINGLE', false, 'test'), ('CF_TAGS', 'Customer', 'STRING', 'LIST', false, 'test')`,
  `update custom_field_template set entity_clazz = 'Seller' where code = 'CF_MANAGER'`,
  `update customer set cf_values = cf_values || '{"CF_SINCE": [{"value": "2024-05-01"}], "CF_VIP": [{"value": true}], "CF_MANAGER": [{"value": {"classname": "org.obol.model.admin.Seller", "code": "MAIN"}}], "CF_TAGS": [{"value": ["a", "b"]}]}'::jsonb where code = 'CUST_001'`,
  `update customer set cf_values = cf_values || '{"CF_VIP": [{"value": false}]}'::jsonb where code = 'CUST_002'`,
]

beforeAll(async () => {
  await loadSqlParser()
  await seedAccountsDemo(db.current.db)
  for (const statement of FIXTURES) await db.current.db.execute(sql.raw(statement))
  templates = await rows<CustomFieldTemplate>(
    db.current.db,
    sql`select code, applies_to as "appliesTo", field_type as "fieldType", storage_type as "storageType", entity_clazz as "entityClazz" from custom_field_template`,
  )
  engine = createQueryEngine({ database: db.current })
})

function compiled(entity: string, filters: Record<string, unknown>) {
  const built = buildQuery(
    registry.get(entity),
    { filters },
    {
      registry,
      allowSql: true,
      customFields: (e) => new Map(templates.filter((t) => t.appliesTo === e.name).map((t) => [t.code, t])),
      defaultLimit: 100,
    },
  )
  const { sql: text, params } = dialect.sqlToQuery(
    compileCount(registry, built.ast, { timeZone: 'UTC', sellerCodes: null }),
  )
  return { sql: text, params }
}

async function codes(entity: string, filters: Record<string, unknown>, principal = EXPERT): Promise<string[]> {
  const page = await engine.runList(principal, entity, { filters, fields: ['code'], limit: 1000 })
  expect(page.total).toBe(page.data.length)
  return (page.data as { code: string }[]).map((r) => r.code)
}

interface GoldenCase {
  name: string
  entity: string
  filters: Record<string, unknown>
  sql: string
  params: unknown[]
  codes: string[]
}

const CASES: GoldenCase[] = [
  {
    name: '<field> equals text ignoring case',
    entity: 'Customer',
    filters: { code: 'cust_007' },
    sql: 'select count(*)::text as "total" from "customer" "a" where lower("a"."code") = lower($1)',
    params: ['cust_007'],
    codes: ['CUST_007'],
  },
  {
    name: '<field> equals text with * wildcards',
    entity: 'Customer',
    filters: { code: 'CUST_00*' },
    sql: 'select count(*)::text as "total" from "customer" "a" where lower("a"."code") like lower($1)',
    params: ['CUST\\_00%'],
    codes: ['CUST_001', 'CUST_002', 'CUST_003', 'CUST_004', 'CUST_005', 'CUST_006', 'CUST_007', 'CUST_008', 'CUST_009'],
  },
  {
    name: '<field> equals an integer',
    entity: 'InvoiceCategory',
    filters: { sortIndex: 2 },
    sql: 'select count(*)::text as "total" from "invoice_category" "a" where "a"."sort_index" = $1::integer',
    params: ['2'],
    codes: ['CONSUMPTION'],
  },
  {
    name: '<field> equals a decimal, exactly',
    entity: 'Tax',
    filters: { percent: 5.5 },
    sql: 'select count(*)::text as "total" from "tax" "a" where "a"."percent" = $1::numeric',
    params: ['5.5'],
    codes: ['TAX_05_5'],
  },
  {
    name: '<field> equals a boolean',
    entity: 'CustomFieldTemplate',
    filters: { valueRequired: true },
    sql: 'select count(*)::text as "total" from "custom_field_template" "a" where "a"."value_required" = $1::boolean',
    params: ['true'],
    codes: ['CF_VIP'],
  },
  {
    name: '<field> equals a day: the whole day on an instant field',
    entity: 'Customer',
    filters: { created: '2026-03-01' },
    sql: 'select count(*)::text as "total" from "customer" "a" where ("a"."created" >= ($1::timestamp at time zone $2) and "a"."created" < ($3::timestamp at time zone $4))',
    params: ['2026-03-01', 'UTC', '2026-03-02', 'UTC'],
    codes: ['CUST_001', 'CUST_002'],
  },
  {
    name: '<field> equals an ISO-8601 date-time: the millisecond it names',
    entity: 'Customer',
    filters: { created: '2026-03-01T23:30:00Z' },
    sql: 'select count(*)::text as "total" from "customer" "a" where ("a"."created" >= $1::timestamptz and "a"."created" < ($2::timestamptz + interval \'1 millisecond\'))',
    params: ['2026-03-01T23:30:00.000Z', '2026-03-01T23:30:00.000Z'],
    codes: ['CUST_002'],
  },
  {
    name: '<field> equals epoch milliseconds',
    entity: 'Customer',
    filters: { created: 1772323200000 },
    sql: 'select count(*)::text as "total" from "customer" "a" where ("a"."created" >= $1::timestamptz and "a"."created" < ($2::timestamptz + interval \'1 millisecond\'))',
    params: ['2026-03-01T00:00:00.000Z', '2026-03-01T00:00:00.000Z'],
    codes: ['CUST_001'],
  },
  {
    name: '<field> equals a day on a date field',
    entity: 'Calendar',
    filters: { referenceDate: '2000-01-03' },
    sql: 'select count(*)::text as "total" from "calendar" "a" where "a"."reference_date" = $1::date',
    params: ['2000-01-03'],
    codes: ['WEEKLY'],
  },
  {
    name: 'ne <field>',
    entity: 'Calendar',
    filters: { 'ne code': 'monthly' },
    sql: 'select count(*)::text as "total" from "calendar" "a" where lower("a"."code") <> lower($1)',
    params: ['monthly'],
    codes: ['QUARTERLY', 'WEEKLY', 'YEARLY_HALVES'],
  },
  {
    name: 'ne <field> on an enumerated field compares with the declared spelling',
    entity: 'Calendar',
    filters: { 'ne calendarType': 'period' },
    sql: 'select count(*)::text as "total" from "calendar" "a" where "a"."calendar_type" <> $1',
    params: ['PERIOD'],
    codes: ['YEARLY_HALVES'],
  },
  {
    name: 'inList on an enumerated field compares with the declared spellings',
    entity: 'Customer',
    filters: { 'inList status': ['closed', 'Active'], code: 'CUST_00*' },
    sql: 'select count(*)::text as "total" from "customer" "a" where ("a"."status" in ($1, $2) and lower("a"."code") like lower($3))',
    params: ['CLOSED', 'ACTIVE', 'CUST\\_00%'],
    codes: ['CUST_001', 'CUST_002', 'CUST_003', 'CUST_004', 'CUST_005', 'CUST_006', 'CUST_007', 'CUST_008', 'CUST_009'],
  },
  {
    name: 'eqOptional <field> with a value',
    entity: 'Calendar',
    filters: { 'eqOptional code': 'monthly' },
    sql: 'select count(*)::text as "total" from "calendar" "a" where lower("a"."code") = lower($1)',
    params: ['monthly'],
    codes: ['MONTHLY'],
  },
  {
    name: 'eqOptional <field> with null is left out',
    entity: 'Calendar',
    filters: { 'eqOptional code': null },
    sql: 'select count(*)::text as "total" from "calendar" "a" where true',
    params: [],
    codes: ['MONTHLY', 'QUARTERLY', 'WEEKLY', 'YEARLY_HALVES'],
  },
  {
    name: 'neOptional <field> with a value',
    entity: 'Calendar',
    filters: { 'neOptional code': 'MONTHLY' },
    sql: 'select count(*)::text as "total" from "calendar" "a" where lower("a"."code") <> lower($1)',
    params: ['MONTHLY'],
    codes: ['QUARTERLY', 'WEEKLY', 'YEARLY_HALVES'],
  },
  {
    name: 'neOptional <field> with null is left out',
    entity: 'Calendar',
    filters: { 'neOptional code': null },
    sql: 'select count(*)::text as "total" from "calendar" "a" where true',
    params: [],
    codes: ['MONTHLY', 'QUARTERLY', 'WEEKLY', 'YEARLY_HALVES'],
  },
  {
    name: 'fromRange truncates a date-time to the start of its day',
    entity: 'Customer',
    filters: { 'fromRange created': '2026-03-01T15:00:00Z' },
    sql: 'select count(*)::text as "total" from "customer" "a" where "a"."created" >= date_trunc(\'day\', $1::timestamptz, $2)',
    params: ['2026-03-01T15:00:00.000Z', 'UTC'],
    codes: ['CUST_001', 'CUST_002', 'CUST_003'],
  },
  {
    name: 'fromRange on a number is >=',
    entity: 'Tax',
    filters: { 'fromRange percent': 5.5 },
    sql: 'select count(*)::text as "total" from "tax" "a" where "a"."percent" >= $1::numeric',
    params: ['5.5'],
    codes: ['TAX_20', 'TAX_05_5'],
  },
  {
    name: 'fromRangeExclusive is >, past the millisecond named',
    entity: 'Customer',
    filters: { 'fromRangeExclusive created': '2026-03-01T00:00:00Z' },
    sql: 'select count(*)::text as "total" from "customer" "a" where "a"."created" >= ($1::timestamptz + interval \'1 millisecond\')',
    params: ['2026-03-01T00:00:00.000Z'],
    codes: ['CUST_002', 'CUST_003'],
  },
  {
    name: 'fromOptionalRange with a value is fromRange',
    entity: 'Tax',
    filters: { 'fromOptionalRange percent': '5.5' },
    sql: 'select count(*)::text as "total" from "tax" "a" where "a"."percent" >= $1::numeric',
    params: ['5.5'],
    codes: ['TAX_20', 'TAX_05_5'],
  },
  {
    name: 'fromOptionalRange with null is left out',
    entity: 'Tax',
    filters: { 'fromOptionalRange percent': null },
    sql: 'select count(*)::text as "total" from "tax" "a" where true',
    params: [],
    codes: ['TAX_20', 'TAX_05_5', 'TAX_00'],
  },
  {
    name: 'toRange is <',
    entity: 'Tax',
    filters: { 'toRange percent': 20 },
    sql: 'select count(*)::text as "total" from "tax" "a" where "a"."percent" < $1::numeric',
    params: ['20'],
    codes: ['TAX_05_5', 'TAX_00'],
  },
  {
    name: 'toRange with a day excludes that day',
    entity: 'Customer',
    filters: { 'toRange created': '2026-03-02', code: 'CUST_00*', 'fromRange created': '2026-01-01' },
    sql: 'select count(*)::text as "total" from "customer" "a" where ("a"."created" < ($1::timestamp at time zone $2) and lower("a"."code") like lower($3) and "a"."created" >= ($4::timestamp at time zone $5))',
    params: ['2026-03-02', 'UTC', 'CUST\\_00%', '2026-01-01', 'UTC'],
    codes: ['CUST_001', 'CUST_002', 'CUST_004'],
  },
  {
    name: 'toRangeInclusive with a day includes the whole day',
    entity: 'Customer',
    filters: { 'toRangeInclusive created': '2026-03-01', 'fromRange created': '2026-01-01' },
    sql: 'select count(*)::text as "total" from "customer" "a" where ("a"."created" < ($1::timestamp at time zone $2) and "a"."created" >= ($3::timestamp at time zone $4))',
    params: ['2026-03-02', 'UTC', '2026-01-01', 'UTC'],
    codes: ['CUST_001', 'CUST_002', 'CUST_004'],
  },
  {
    name: 'toRangeInclusive on a number is <=',
    entity: 'Tax',
    filters: { 'toRangeInclusive percent': 5.5 },
    sql: 'select count(*)::text as "total" from "tax" "a" where "a"."percent" <= $1::numeric',
    params: ['5.5'],
    codes: ['TAX_05_5', 'TAX_00'],
  },
  {
    name: 'toOptionalRange with null is left out',
    entity: 'Tax',
    filters: { 'toOptionalRange percent': null },
    sql: 'select count(*)::text as "total" from "tax" "a" where true',
    params: [],
    codes: ['TAX_20', 'TAX_05_5', 'TAX_00'],
  },
  {
    name: 'toOptionalRangeInclusive with a value',
    entity: 'Tax',
    filters: { 'toOptionalRangeInclusive percent': 5.5 },
    sql: 'select count(*)::text as "total" from "tax" "a" where "a"."percent" <= $1::numeric',
    params: ['5.5'],
    codes: ['TAX_05_5', 'TAX_00'],
  },
  {
    name: 'list: the value is an element of the list field',
    entity: 'Calendar',
    filters: { 'list days': '07-01' },
    sql: 'select count(*)::text as "total" from "calendar" "a" where "a"."days" @> $1::text[]',
    params: ['{"07-01"}'],
    codes: ['YEARLY_HALVES'],
  },
  {
    name: 'listInList: every given value is in the list field',
    entity: 'Calendar',
    filters: { 'listInList days': ['01-01', '07-01'] },
    sql: 'select count(*)::text as "total" from "calendar" "a" where "a"."days" @> $1::text[]',
    params: ['{"01-01","07-01"}'],
    codes: ['YEARLY_HALVES'],
  },
  {
    name: 'listInList: a value missing from the list field',
    entity: 'Calendar',
    filters: { 'listInList days': ['01-01', '03-01'] },
    sql: 'select count(*)::text as "total" from "calendar" "a" where "a"."days" @> $1::text[]',
    params: ['{"01-01","03-01"}'],
    codes: [],
  },
  {
    name: 'inList',
    entity: 'Country',
    filters: { 'inList code': ['fr', 'DE'] },
    sql: 'select count(*)::text as "total" from "country" "a" where lower("a"."code") in (lower($1), lower($2))',
    params: ['fr', 'DE'],
    codes: ['FR', 'DE'],
  },
  {
    name: 'not-inList',
    entity: 'Country',
    filters: { 'not-inList code': ['FR', 'DE'] },
    sql: 'select count(*)::text as "total" from "country" "a" where not (lower("a"."code") in (lower($1), lower($2)))',
    params: ['FR', 'DE'],
    codes: ['US', 'GB'],
  },
  {
    name: 'inSqlList (queryExpert)',
    entity: 'Country',
    filters: { 'inSqlList id': "select country_id from billing_account where code = 'BA_001'" },
    sql: 'select count(*)::text as "total" from "country" "a" where "a"."id" in (select country_id from billing_account where code = \'BA_001\')',
    params: [],
    codes: ['DE'],
  },
  {
    name: 'minmaxRange f1 f2: f1 <= value < f2',
    entity: 'Customer',
    filters: { 'minmaxRange created updated': '2026-03-15' },
    sql: 'select count(*)::text as "total" from "customer" "a" where ("a"."created" <= ($1::timestamp at time zone $2) and "a"."updated" > ($3::timestamp at time zone $4))',
    params: ['2026-03-15', 'UTC', '2026-03-15', 'UTC'],
    codes: ['CUST_001'],
  },
  {
    name: 'minmaxRangeInclusive f1 f2: f2 inclusive',
    entity: 'Customer',
    filters: { 'minmaxRangeInclusive created updated': '2026-03-15' },
    sql: 'select count(*)::text as "total" from "customer" "a" where ("a"."created" <= ($1::timestamp at time zone $2) and "a"."updated" >= ($3::timestamp at time zone $4))',
    params: ['2026-03-15', 'UTC', '2026-03-15', 'UTC'],
    codes: ['CUST_001', 'CUST_002'],
  },
  {
    name: 'minmaxOptionalRange: a null field is open',
    entity: 'Customer',
    filters: { 'minmaxOptionalRange created updated': '2026-03-15', 'fromRange created': '2026-01-01' },
    sql: 'select count(*)::text as "total" from "customer" "a" where (("a"."created" is null or "a"."created" <= ($1::timestamp at time zone $2)) and ("a"."updated" is null or "a"."updated" > ($3::timestamp at time zone $4)) and "a"."created" >= ($5::timestamp at time zone $6))',
    params: ['2026-03-15', 'UTC', '2026-03-15', 'UTC', '2026-01-01', 'UTC'],
    codes: ['CUST_001', 'CUST_003', 'CUST_004'],
  },
  {
    name: 'minmaxOptionalRangeInclusive',
    entity: 'Customer',
    filters: { 'minmaxOptionalRangeInclusive created updated': '2026-03-15', 'fromRange created': '2026-01-01' },
    sql: 'select count(*)::text as "total" from "customer" "a" where (("a"."created" is null or "a"."created" <= ($1::timestamp at time zone $2)) and ("a"."updated" is null or "a"."updated" >= ($3::timestamp at time zone $4)) and "a"."created" >= ($5::timestamp at time zone $6))',
    params: ['2026-03-15', 'UTC', '2026-03-15', 'UTC', '2026-01-01', 'UTC'],
    codes: ['CUST_001', 'CUST_002', 'CUST_003', 'CUST_004'],
  },
  {
    name: 'overlapOptionalRange: exclusive bounds',
    entity: 'Customer',
    filters: {
      'overlapOptionalRange created updated': ['2026-03-15', '2026-03-20'],
      'fromRange created': '2026-01-01',
    },
    sql: 'select count(*)::text as "total" from "customer" "a" where (("a"."created" is null or "a"."created" < ($1::timestamp at time zone $2)) and ("a"."updated" is null or "a"."updated" > ($3::timestamp at time zone $4)) and "a"."created" >= ($5::timestamp at time zone $6))',
    params: ['2026-03-20', 'UTC', '2026-03-15', 'UTC', '2026-01-01', 'UTC'],
    codes: ['CUST_001', 'CUST_003', 'CUST_004'],
  },
  {
    name: 'overlapOptionalRangeInclusive: inclusive bounds',
    entity: 'Customer',
    filters: {
      'overlapOptionalRangeInclusive created updated': ['2026-03-15', '2026-03-20'],
      'fromRange created': '2026-01-01',
    },
    sql: 'select count(*)::text as "total" from "customer" "a" where (("a"."created" is null or "a"."created" <= ($1::timestamp at time zone $2)) and ("a"."updated" is null or "a"."updated" >= ($3::timestamp at time zone $4)) and "a"."created" >= ($5::timestamp at time zone $6))',
    params: ['2026-03-20', 'UTC', '2026-03-15', 'UTC', '2026-01-01', 'UTC'],
    codes: ['CUST_001', 'CUST_002', 'CUST_003', 'CUST_004'],
  },
  {
    name: 'likeCriterias: any field matches, * wildcards',
    entity: 'Customer',
    filters: { 'likeCriterias code name': '*lovelace' },
    sql: 'select count(*)::text as "total" from "customer" "a" where (lower("a"."code") like lower($1) or lower("a"."name") like lower($2))',
    params: ['%lovelace', '%lovelace'],
    codes: ['CUST_001', 'CUST_002', 'CUST_003', 'CUST_004', 'CUST_050'],
  },
  {
    name: 'wildcardOr wraps the value in *...*',
    entity: 'Customer',
    filters: { 'wildcardOr code email': '_04' },
    sql: 'select count(*)::text as "total" from "customer" "a" where (lower("a"."code") like lower($1) or lower("a"."email") like lower($2))',
    params: ['%\\_04%', '%\\_04%'],
    codes: [
      'CUST_040',
      'CUST_041',
      'CUST_042',
      'CUST_043',
      'CUST_044',
      'CUST_045',
      'CUST_046',
      'CUST_047',
      'CUST_048',
      'CUST_049',
    ],
  },
  {
    name: 'wildcardOrIgnoreCase',
    entity: 'Customer',
    filters: { 'wildcardOrIgnoreCase name description': 'NOETHER' },
    sql: 'select count(*)::text as "total" from "customer" "a" where (lower("a"."name") like lower($1) or lower("a"."description") like lower($2))',
    params: ['%NOETHER%', '%NOETHER%'],
    codes: ['CUST_015', 'CUST_016', 'CUST_017', 'CUST_018', 'CUST_019'],
  },
  {
    name: 'or <f1> <f2> is wildcardOrIgnoreCase',
    entity: 'Customer',
    filters: { 'or name description': 'verne' },
    sql: 'select count(*)::text as "total" from "customer" "a" where (lower("a"."name") like lower($1) or lower("a"."description") like lower($2))',
    params: ['%verne%', '%verne%'],
    codes: ['CUST_045', 'CUST_046', 'CUST_047', 'CUST_048', 'CUST_049'],
  },
  {
    name: 'anyMatch: several paths, one value, LEFT-joined',
    entity: 'BillingAccount',
    filters: { 'anyMatch code customerAccount.code': 'ca_002' },
    sql: 'select count(*)::text as "total" from "billing_account" "a" left join "customer_account" "j1" on "j1"."id" = "a"."customer_account_id" where (lower("a"."code") = lower($1) or lower("j1"."code") = lower($2))',
    params: ['ca_002', 'ca_002'],
    codes: ['BA_002'],
  },
  {
    name: 'SQL, SQL2, SQL<suffix>: raw fragments on alias a (queryExpert)',
    entity: 'Customer',
    filters: { SQL: "a.code like 'CUST_00%'", SQL2: "a.code <> 'CUST_001'", SQLlast: 'a.id < 4' },
    sql: 'select count(*)::text as "total" from "customer" "a" where ((a.code like \'CUST_00%\') and (a.code <> \'CUST_001\') and (a.id < 4))',
    params: [],
    codes: ['CUST_002', 'CUST_003'],
  },
  {
    name: 'OR: a nested object combined by OR',
    entity: 'Customer',
    filters: { OR: { code: 'CUST_001', name: 'hugo pascal' } },
    sql: 'select count(*)::text as "total" from "customer" "a" where (lower("a"."code") = lower($1) or lower("a"."name") = lower($2))',
    params: ['CUST_001', 'hugo pascal'],
    codes: ['CUST_001', 'CUST_007'],
  },
  {
    name: 'AND<suffix>: one field with several conditions',
    entity: 'Customer',
    filters: { 'AND1 fromRange created': '2026-03-01', 'AND2 toRange created': '2026-03-02' },
    sql: 'select count(*)::text as "total" from "customer" "a" where ("a"."created" >= ($1::timestamp at time zone $2) and "a"."created" < ($3::timestamp at time zone $4))',
    params: ['2026-03-01', 'UTC', '2026-03-02', 'UTC'],
    codes: ['CUST_001', 'CUST_002'],
  },
  {
    name: 'value IS_NULL',
    entity: 'Customer',
    filters: { updated: 'IS_NULL', 'fromRange created': '2026-01-01' },
    sql: 'select count(*)::text as "total" from "customer" "a" where ("a"."updated" is null and "a"."created" >= ($1::timestamp at time zone $2))',
    params: ['2026-01-01', 'UTC'],
    codes: ['CUST_003', 'CUST_004'],
  },
  {
    name: 'value IS_NOT_NULL',
    entity: 'Customer',
    filters: { updated: 'IS_NOT_NULL' },
    sql: 'select count(*)::text as "total" from "customer" "a" where "a"."updated" is not null',
    params: [],
    codes: ['CUST_001', 'CUST_002'],
  },
  {
    name: '<entity>.<field> through many-to-one relations',
    entity: 'BillingAccount',
    filters: { 'customerAccount.customer.code': 'CUST_003' },
    sql: 'select count(*)::text as "total" from "billing_account" "a" inner join "customer_account" "j1" on "j1"."id" = "a"."customer_account_id" inner join "customer" "j2" on "j2"."id" = "j1"."customer_id" where lower("j2"."code") = lower($1)',
    params: ['CUST_003'],
    codes: ['BA_003'],
  },
  {
    name: '<entity>.<field> through a collection',
    entity: 'Customer',
    filters: { 'customerAccounts.code': 'CA_005' },
    sql: 'select count(*)::text as "total" from "customer" "a" where exists (select 1 from "customer_account" "e1" where "e1"."customer_id" = "a"."id" and lower("e1"."code") = lower($1))',
    params: ['CA_005'],
    codes: ['CUST_005'],
  },
  {
    name: '<entity> with a code',
    entity: 'Customer',
    filters: { seller: 'OTHER' },
    sql: 'select count(*)::text as "total" from "customer" "a" inner join "seller" "j1" on "j1"."id" = "a"."seller_id" where lower("j1"."code") = lower($1)',
    params: ['OTHER'],
    codes: ['CUST_X1', 'CUST_X2'],
  },
  {
    name: '<entity> with { id }',
    entity: 'Customer',
    filters: { 'ne seller': { id: 1 } },
    sql: 'select count(*)::text as "total" from "customer" "a" where "a"."seller_id" <> $1::bigint',
    params: ['1'],
    codes: ['CUST_X1', 'CUST_X2'],
  },
  {
    name: '<entity> IS_NULL',
    entity: 'Seller',
    filters: { parentSeller: 'IS_NULL' },
    sql: 'select count(*)::text as "total" from "seller" "a" where "a"."parent_seller_id" is null',
    params: [],
    codes: ['MAIN'],
  },
  {
    name: '<collection> IS_NULL: no element',
    entity: 'Customer',
    filters: { customerAccounts: 'IS_NULL' },
    sql: 'select count(*)::text as "total" from "customer" "a" where not (exists (select 1 from "customer_account" "e1" where "e1"."customer_id" = "a"."id"))',
    params: [],
    codes: ['CUST_X2'],
  },
  {
    name: 'ne <collection> IS_NULL: some element',
    entity: 'Seller',
    filters: { 'ne customers': 'IS_NULL' },
    sql: 'select count(*)::text as "total" from "seller" "a" where exists (select 1 from "customer" "e1" where "e1"."seller_id" = "a"."id")',
    params: [],
    codes: ['MAIN', 'OTHER'],
  },
  {
    name: '$filter<N> blocks ANDed to the top-level set, $operator per block',
    entity: 'Customer',
    filters: {
      $operator: 'OR',
      code: 'CUST_001',
      name: 'hugo pascal',
      $filter1: { $OPERATOR: 'or', code: 'CUST_00*', 'fromRange created': '2030-01-01' },
    },
    sql: 'select count(*)::text as "total" from "customer" "a" where ((lower("a"."code") = lower($1) or lower("a"."name") = lower($2)) and (lower("a"."code") like lower($3) or "a"."created" >= ($4::timestamp at time zone $5)))',
    params: ['CUST_001', 'hugo pascal', 'CUST\\_00%', '2030-01-01', 'UTC'],
    codes: ['CUST_001', 'CUST_007'],
  },
  {
    name: '$FILTER<N> and $OPERATOR in upper case',
    entity: 'Customer',
    filters: {
      $OPERATOR: 'or',
      code: 'CUST_001',
      name: 'hugo pascal',
      $FILTER1: { $Operator: 'OR', code: 'CUST_00*', 'fromRange created': '2030-01-01' },
    },
    sql: 'select count(*)::text as "total" from "customer" "a" where ((lower("a"."code") = lower($1) or lower("a"."name") = lower($2)) and (lower("a"."code") like lower($3) or "a"."created" >= ($4::timestamp at time zone $5)))',
    params: ['CUST_001', 'hugo pascal', 'CUST\\_00%', '2030-01-01', 'UTC'],
    codes: ['CUST_001', 'CUST_007'],
  },
  {
    name: 'type_class: a subclass by simple name',
    entity: 'Calendar',
    filters: { type_class: 'CalendarYearly' },
    sql: 'select count(*)::text as "total" from "calendar" "a" where "a"."calendar_type" in ($1)',
    params: ['YEARLY'],
    codes: ['YEARLY_HALVES'],
  },
  {
    name: 'type_class: a list of full names',
    entity: 'Calendar',
    filters: { type_class: ['org.obol.model.catalog.CalendarPeriod', 'org.obol.model.catalog.CalendarYearly'] },
    sql: 'select count(*)::text as "total" from "calendar" "a" where "a"."calendar_type" in ($1, $2)',
    params: ['PERIOD', 'YEARLY'],
    codes: ['MONTHLY', 'QUARTERLY', 'WEEKLY', 'YEARLY_HALVES'],
  },
  {
    name: 'inList type_class: a comma-separated string',
    entity: 'Calendar',
    filters: { 'inList type_class': 'CalendarPeriod, CalendarYearly' },
    sql: 'select count(*)::text as "total" from "calendar" "a" where "a"."calendar_type" in ($1, $2)',
    params: ['PERIOD', 'YEARLY'],
    codes: ['MONTHLY', 'QUARTERLY', 'WEEKLY', 'YEARLY_HALVES'],
  },
  {
    name: 'ne type_class excludes a subclass',
    entity: 'Calendar',
    filters: { 'ne type_class': 'org.obol.model.catalog.CalendarPeriod' },
    sql: 'select count(*)::text as "total" from "calendar" "a" where not ("a"."calendar_type" in ($1))',
    params: ['PERIOD'],
    codes: ['YEARLY_HALVES'],
  },
  {
    name: 'cfValues STRING: ignoring case',
    entity: 'Customer',
    filters: { cfValues: { CF_SEGMENT: [{ value: 'smb' }] }, code: 'CUST_00*' },
    sql: 'select count(*)::text as "total" from "customer" "a" where (exists (select 1 from jsonb_path_query("a"."cf_values" -> $1, \'lax $[*].value\') as "cf1"("value") where lower("cf1"."value" #>> \'{}\') = lower($2)) and lower("a"."code") like lower($3))',
    params: ['CF_SEGMENT', 'smb', 'CUST\\_00%'],
    codes: ['CUST_003', 'CUST_006', 'CUST_009'],
  },
  {
    name: 'cfValues LONG',
    entity: 'Customer',
    filters: { cfValues: { CF_EMPLOYEES: [{ value: 70 }] } },
    sql: 'select count(*)::text as "total" from "customer" "a" where exists (select 1 from jsonb_path_query("a"."cf_values" -> $1, \'lax $[*].value\') as "cf1"("value") where (case when jsonb_typeof("cf1"."value") = \'number\' then ("cf1"."value" #>> \'{}\')::numeric = $2::numeric else false end))',
    params: ['CF_EMPLOYEES', '70'],
    codes: ['CUST_007'],
  },
  {
    name: 'cfValues DOUBLE',
    entity: 'BillingAccount',
    filters: { cfValues: { CF_CREDIT_SCORE: [{ value: 522.5 }] } },
    sql: 'select count(*)::text as "total" from "billing_account" "a" where exists (select 1 from jsonb_path_query("a"."cf_values" -> $1, \'lax $[*].value\') as "cf1"("value") where (case when jsonb_typeof("cf1"."value") = \'number\' then ("cf1"."value" #>> \'{}\')::numeric = $2::numeric else false end))',
    params: ['CF_CREDIT_SCORE', '522.5'],
    codes: ['BA_003'],
  },
  {
    name: 'cfValues DATE',
    entity: 'Customer',
    filters: { cfValues: { CF_SINCE: [{ value: '2024-05-01' }] } },
    sql: 'select count(*)::text as "total" from "customer" "a" where exists (select 1 from jsonb_path_query("a"."cf_values" -> $1, \'lax $[*].value\') as "cf1"("value") where left("cf1"."value" #>> \'{}\', 10) = $2)',
    params: ['CF_SINCE', '2024-05-01'],
    codes: ['CUST_001'],
  },
  {
    name: 'cfValues BOOLEAN',
    entity: 'Customer',
    filters: { cfValues: { CF_VIP: [{ value: true }] } },
    sql: 'select count(*)::text as "total" from "customer" "a" where exists (select 1 from jsonb_path_query("a"."cf_values" -> $1, \'lax $[*].value\') as "cf1"("value") where "cf1"."value" = $2::jsonb)',
    params: ['CF_VIP', 'true'],
    codes: ['CUST_001'],
  },
  {
    name: 'cfValues ENTITY: class name and code, the code ignoring case',
    entity: 'Customer',
    filters: { cfValues: { CF_MANAGER: [{ value: { classname: 'Seller', code: 'main' } }] } },
    sql: 'select count(*)::text as "total" from "customer" "a" where exists (select 1 from jsonb_path_query("a"."cf_values" -> $1, \'lax $[*].value\') as "cf1"("value") where (lower(coalesce("cf1"."value" ->> \'code\', "cf1"."value" #>> \'{}\')) = lower($2) and ("cf1"."value" ->> \'classname\') in ($3, $4)))',
    params: ['CF_MANAGER', 'main', 'org.obol.model.admin.Seller', 'Seller'],
    codes: ['CUST_001'],
  },
  {
    name: '<relation>.cfValues',
    entity: 'BillingAccount',
    filters: { 'customerAccount.customer.cfValues': { CF_EMPLOYEES: [{ value: 120 }] } },
    sql: 'select count(*)::text as "total" from "billing_account" "a" inner join "customer_account" "j1" on "j1"."id" = "a"."customer_account_id" inner join "customer" "j2" on "j2"."id" = "j1"."customer_id" where exists (select 1 from jsonb_path_query("j2"."cf_values" -> $1, \'lax $[*].value\') as "cf3"("value") where (case when jsonb_typeof("cf3"."value") = \'number\' then ("cf3"."value" #>> \'{}\')::numeric = $2::numeric else false end))',
    params: ['CF_EMPLOYEES', '120'],
    codes: ['BA_012'],
  },
]

describe('filter grammar: compiled SQL and rows', () => {
  it.each(CASES)('$name', async ({ entity, filters, sql: expectedSql, params, codes: expected }) => {
    expect(compiled(entity, filters)).toEqual({ sql: expectedSql, params })
    expect(await codes(entity, filters)).toEqual(expected)
  })

  it('compares decimals exactly, never through a double', async () => {
    const filters = parseJsonExact('{ "fromRangeExclusive multiplicator": 1023.99999999999999999 }') as Record<
      string,
      unknown
    >
    expect(compiled('UnitOfMeasure', filters).params).toEqual(['1023.99999999999999999'])
    // As a double the value is 1024, and GB (1024) would not be greater than it.
    expect(await codes('UnitOfMeasure', filters)).toEqual(['GB'])
  })

  it('accepts a keyword condition in any case and an $operator value in any case', async () => {
    expect(await codes('Tax', { 'FROMRANGE percent': 5.5, $operator: 'And' })).toEqual(['TAX_20', 'TAX_05_5'])
  })

  it('matches a custom field date against an instant by its day in the tenant time zone', async () => {
    // 23:30 UTC on 30 April is 1 May in Paris.
    const filters = { cfValues: { CF_SINCE: [{ value: '2024-04-30T23:30:00Z' }] } }
    expect(await codes('Customer', filters)).toEqual([])
    await db.current.db.execute(sql`update tenant_setting set time_zone = 'Europe/Paris'`)
    forgetTenantSettings(db.current.db)
    try {
      expect(await codes('Customer', filters)).toEqual(['CUST_001'])
      expect(await codes('Customer', { cfValues: { CF_SINCE: [{ value: 1714519800000 }] } })).toEqual(['CUST_001'])
    } finally {
      await db.current.db.execute(sql`update tenant_setting set time_zone = 'UTC'`)
      forgetTenantSettings(db.current.db)
    }
  })

  it('keeps %, _ and \\ literal in text values: only * is a wildcard', async () => {
    expect(compiled('Customer', { 'wildcardOr name': '50%_\\' }).params).toEqual(['%50\\%\\_\\\\%'])
    expect(await codes('Customer', { 'wildcardOr name': '50%' })).toEqual([])
  })
})

describe('filter grammar: rejected filters', () => {
  it.each([
    ['an unknown field', 'Customer', { colour: 'red' }, 'colour is not a field or relation of Customer'],
    ['an unknown condition', 'Customer', { 'between code': 'A' }, 'unknown condition between'],
    [
      'an unknown field behind a relation',
      'BillingAccount',
      { 'customerAccount.nope': 1 },
      'nope is not a field or relation of CustomerAccount',
    ],
    ['a value of the wrong type', 'InvoiceCategory', { sortIndex: 'two' }, 'expected an integer'],
    ['an integer out of range', 'InvoiceCategory', { sortIndex: 2147483648 }, 'expected an integer between'],
    ['a date that does not exist', 'Customer', { created: '2026-02-30' }, '2026-02-30 is not a calendar date'],
    ['a malformed date', 'Customer', { 'fromRange created': 'yesterday' }, 'expected a date (yyyy-MM-dd)'],
    ['a missing value for a required condition', 'Tax', { 'fromRange percent': null }, 'a value is required'],
    ['a null equality (IS_NULL is the way)', 'Customer', { name: null }, 'IS_NULL tests for null'],
    ['a list for a single value', 'Customer', { code: ['A', 'B'] }, 'expected a single value'],
    ['list on a field that is not list-valued', 'Customer', { 'list code': 'A' }, 'code is not a list-valued field'],
    ['listInList without an array', 'Calendar', { 'listInList days': '01-01' }, 'expected an array of values'],
    [
      'minmaxRange with one field',
      'Customer',
      { 'minmaxRange created': '2026-01-01' },
      'minmaxRange takes exactly two fields',
    ],
    [
      'overlapOptionalRange without a pair',
      'Customer',
      { 'overlapOptionalRange created updated': ['2026-01-01'] },
      'expected a two-element array',
    ],
    ['wildcardOr on a number', 'Tax', { 'wildcardOr percent': '5' }, 'percent is not a text field'],
    ['an $operator other than AND or OR', 'Customer', { $operator: 'XOR', code: 'A' }, 'expected AND or OR'],
    ['a $filter<N> that is not an object', 'Customer', { $filter1: 'code' }, 'expected a nested filter object'],
    ['an unknown $ key', 'Customer', { $limit: 5 }, 'unknown key'],
    [
      'type_class naming an unrelated class',
      'Calendar',
      { type_class: 'Customer' },
      'is not org.obol.model.catalog.Calendar or one of its subclasses',
    ],
    [
      'type_class with a range condition',
      'Calendar',
      { 'fromRange type_class': 'CalendarYearly' },
      'cannot be used with type_class',
    ],
    [
      'a custom field of another entity',
      'Customer',
      { cfValues: { CF_CREDIT_SCORE: [{ value: 1 }] } },
      'no custom field CF_CREDIT_SCORE applies to Customer',
    ],
    [
      'a list custom field',
      'Customer',
      { cfValues: { CF_TAGS: [{ value: 'a' }] } },
      'filtering on the list custom field CF_TAGS is not supported',
    ],
    [
      'a custom field value of the wrong type',
      'Customer',
      { cfValues: { CF_EMPLOYEES: [{ value: 'many' }] } },
      'CF_EMPLOYEES (LONG): expected an integer',
    ],
    [
      'cfValues on an entity without custom fields',
      'Tax',
      { cfValues: { X: [{ value: 1 }] } },
      'Tax has no custom fields',
    ],
    ['a relation without a code', 'Customer', { 'seller.nope': 'X' }, 'nope is not a field or relation of Seller'],
    [
      'an SQL fragment ending the statement',
      'Customer',
      { SQL: "a.code = 'X'; delete from customer" },
      'may not contain ;',
    ],
    [
      'an SQL fragment closing a parenthesis',
      'Customer',
      { SQL: 'true) or (1 = 1' },
      'closes a parenthesis it did not open',
    ],
    ['an SQL fragment commenting the rest out', 'Customer', { SQL: 'true --' }, 'may not contain comments'],
    [
      'an SQL fragment reading the system catalogs',
      'Customer',
      { SQL: 'exists (select 1 from pg_authid)' },
      'system catalogs not permitted',
    ],
    [
      'an SQL fragment reading a secret table',
      'Customer',
      { SQL: 'exists (select 1 from user_credential)' },
      'may not read user_credential',
    ],
    [
      'an SQL fragment that writes',
      'Customer',
      { SQL: 'exists (select 1 from (update customer set name = null returning 1) u)' },
      'does not parse',
    ],
    [
      'an inSqlList value that is not a sub-select',
      'Country',
      { 'inSqlList id': '1, 2' },
      'expected a sub-select starting with SELECT',
    ],
    ['a number compared with a text field by range', 'Customer', { 'fromRange name': 5 }, 'expected a string'],
    ['a boolean compared with a text field', 'Customer', { code: true }, 'expected a string'],
    ['a number in a list of text values', 'Customer', { 'inList code': ['CUST_001', 2] }, 'expected a string'],
    ['a number for a text field in an OR set', 'Customer', { 'likeCriterias code name': 7 }, 'expected a string'],
    ['a number for a relation code', 'BillingAccount', { country: 2 }, 'expected the code of a Country'],
    ['a boolean for a relation code', 'Customer', { seller: false }, 'expected the code of a Seller'],
    [
      'a classname other than the entity of an ENTITY custom field',
      'Customer',
      { cfValues: { CF_MANAGER: [{ value: { classname: 'Customer', code: 'MAIN' } }] } },
      'is not org.obol.model.admin.Seller',
    ],
  ])('rejects %s with 400 INVALID_FILTER naming the key', async (_what, entity, filters, message) => {
    const failure = engine.runList(EXPERT, entity, { filters })
    await expect(failure).rejects.toMatchObject({ code: 'INVALID_FILTER' })
    await expect(failure).rejects.toThrow(message)
    await expect(failure).rejects.toThrow(`'${Object.keys(filters)[0]!}'`)
  })

  it('answers 403 to SQL keys and inSqlList without queryExpert', async () => {
    await expect(engine.runList(USER, 'Customer', { filters: { SQL: 'true' } })).rejects.toMatchObject({
      code: 'FORBIDDEN',
    })
    await expect(engine.runList(USER, 'Country', { filters: { 'inSqlList id': 'select 1' } })).rejects.toMatchObject({
      code: 'FORBIDDEN',
    })
  })

  it("answers 400, without the database message, when an expert's SQL fragment fails", async () => {
    const failure = engine.runList(EXPERT, 'Customer', { filters: { SQL: 'a.no_such_column = 1' } })
    await expect(failure).rejects.toMatchObject({
      code: 'INVALID_FILTER',
      message: 'filters: the SQL filter could not be run (SQLSTATE 42703)',
    })
  })

  it('runs SQL fragments read-only', async () => {
    const failure = engine.runList(EXPERT, 'Customer', {
      filters: { 'inSqlList id': "select nextval('customer_id_seq')" },
    })
    await expect(failure).rejects.toMatchObject({ code: 'INVALID_FILTER' })
    const [row] = await rows<{ n: string }>(db.current.db, sql`select count(*)::text as n from customer`)
    expect(row!.n).toBe('52')
  })
})
