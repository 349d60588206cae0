// Pricing's tables: the versions of a charge's price and a MATRIX version's columns and rows (module pricing).
import { check, date, index, integer, jsonb, numeric, text, timestamp, unique, uniqueIndex } from 'drizzle-orm/pg-core'
import { pgTable } from 'drizzle-orm/pg-core'
import { sql } from 'drizzle-orm'
import { auditColumns, idColumn, refColumn } from './columns.ts'
import { attributes, tradingCurrencies } from './reference.ts'
import { chargeTemplates } from './catalog.ts'

/** Unit prices: 18 integer digits, 12 decimals (money.ts rounds unit prices to 12). */
const price = (name: string) => numeric(name, { precision: 30, scale: 12 })

/**
 * Versions of a charge's price. At most one DRAFT per charge (the mutable one); PUBLISHED versions form an
 * end-exclusive timeline: publishing closes the open-ended predecessor at the new `valid_from`.
 */
export const pricingVersions = pgTable(
  'pricing_version',
  {
    id: idColumn(),
    chargeId: refColumn('charge_id')
      .notNull()
      .references(() => chargeTemplates.id, { onDelete: 'cascade' }),
    version: integer('version').notNull(),
    status: text('status').notNull().default('DRAFT'),
    pricingModel: text('pricing_model').notNull(),
    currencyId: refColumn('currency_id')
      .notNull()
      .references(() => tradingCurrencies.id),
    validFrom: date('valid_from', { mode: 'string' }),
    validTo: date('valid_to', { mode: 'string' }),
    price: price('price').notNull().default('0'),
    priceFx: text('price_fx'),
    publishedAt: timestamp('published_at', { withTimezone: true, mode: 'date' }),
    ...auditColumns(),
  },
  (t) => [
    unique('pricing_version_number_uq').on(t.chargeId, t.version),
    // One mutable draft per charge, even under concurrent requests.
    uniqueIndex('pricing_version_one_draft_uq')
      .on(t.chargeId)
      .where(sql`status = 'DRAFT'`),
    // The timeline has one open end: the latest published version.
    uniqueIndex('pricing_version_one_open_uq')
      .on(t.chargeId)
      .where(sql`status = 'PUBLISHED' and valid_to is null`),
    check('pricing_version_status_valid', sql`${t.status} in ('DRAFT', 'PUBLISHED')`),
    check('pricing_version_model_valid', sql`${t.pricingModel} in ('FLAT', 'MATRIX', 'FORMULA')`),
    check(
      'pricing_version_validity',
      sql`${t.validTo} is null or ${t.validFrom} is null or ${t.validTo} > ${t.validFrom}`,
    ),
    check('pricing_version_formula', sql`(${t.pricingModel} = 'FORMULA') = (${t.priceFx} is not null)`),
  ],
)

/** A dimension of a MATRIX pricing version, backed by an attribute. */
export const pricingMatrixColumns = pgTable(
  'pricing_matrix_column',
  {
    id: idColumn(),
    pricingVersionId: refColumn('pricing_version_id')
      .notNull()
      .references(() => pricingVersions.id, { onDelete: 'cascade' }),
    code: text('code').notNull(),
    columnType: text('column_type').notNull(),
    position: integer('position').notNull(),
    attributeId: refColumn('attribute_id')
      .notNull()
      .references(() => attributes.id),
  },
  (t) => [
    unique('pricing_matrix_column_code_uq').on(t.pricingVersionId, t.code),
    unique('pricing_matrix_column_position_uq').on(t.pricingVersionId, t.position),
    index('pricing_matrix_column_attribute_idx').on(t.attributeId),
  ],
)

/**
 * A price line of a MATRIX version, tried in `priority` order. `values` holds one entry per constrained column:
 * `{ dimensionCode, stringValue }` or, for range columns, `{ dimensionCode, fromValue, toValue }`.
 */
export const pricingMatrixRows = pgTable(
  'pricing_matrix_row',
  {
    id: idColumn(),
    pricingVersionId: refColumn('pricing_version_id')
      .notNull()
      .references(() => pricingVersions.id, { onDelete: 'cascade' }),
    priority: integer('priority').notNull(),
    price: price('price').notNull(),
    description: text('description'),
    values: jsonb('values').$type<Record<string, unknown>[]>().notNull().default([]),
  },
  (t) => [unique('pricing_matrix_row_priority_uq').on(t.pricingVersionId, t.priority)],
)
