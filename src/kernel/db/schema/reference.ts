import { boolean, check, integer, numeric, text, date, unique } from 'drizzle-orm/pg-core'
import { pgTable } from 'drizzle-orm/pg-core'
import { sql } from 'drizzle-orm'
import { codedColumns, refColumn } from './columns.ts'

export const tradingCurrencies = pgTable('trading_currency', {
  ...codedColumns(),
  symbol: text('symbol'),
  decimalPlaces: integer('decimal_places').notNull().default(2),
})

export const countries = pgTable('country', {
  ...codedColumns(),
  currencyId: refColumn('currency_id').references(() => tradingCurrencies.id),
})

export const languages = pgTable('language', { ...codedColumns() })

/** Titles of customers (Mr, Mrs, Company…), as Opencell's `Title`: a company title marks a company. */
export const titles = pgTable('title', {
  ...codedColumns(),
  isCompany: boolean('is_company').notNull().default(false),
})

export const taxes = pgTable(
  'tax',
  {
    ...codedColumns(),
    percent: numeric('percent', { precision: 9, scale: 4 }).notNull(),
  },
  (t) => [check('tax_percent_range', sql`${t.percent} >= 0 and ${t.percent} <= 100`)],
)

export const taxClasses = pgTable('tax_class', { ...codedColumns() })

export const taxMappings = pgTable(
  'tax_mapping',
  {
    ...codedColumns(),
    taxClassId: refColumn('tax_class_id')
      .notNull()
      .references(() => taxClasses.id),
    sellerCountryId: refColumn('seller_country_id').references(() => countries.id),
    billingCountryId: refColumn('billing_country_id').references(() => countries.id),
    taxId: refColumn('tax_id')
      .notNull()
      .references(() => taxes.id),
    priority: integer('priority').notNull().default(0),
  },
  (t) => [unique('tax_mapping_scope_uq').on(t.taxClassId, t.sellerCountryId, t.billingCountryId).nullsNotDistinct()],
)

export const invoiceCategories = pgTable('invoice_category', {
  ...codedColumns(),
  sortIndex: integer('sort_index'),
})

export const invoiceSubCategories = pgTable('invoice_sub_category', {
  ...codedColumns(),
  invoiceCategoryId: refColumn('invoice_category_id')
    .notNull()
    .references(() => invoiceCategories.id),
  sortIndex: integer('sort_index'),
})

export const accountingArticles = pgTable('accounting_article', {
  ...codedColumns(),
  invoiceSubCategoryId: refColumn('invoice_sub_category_id')
    .notNull()
    .references(() => invoiceSubCategories.id),
  taxClassId: refColumn('tax_class_id')
    .notNull()
    .references(() => taxClasses.id),
  accountingCode: text('accounting_code'),
})

/**
 * Calendars cut time into billing periods. One table, discriminated by `calendar_type`
 * (the registry declares the subclasses): PERIOD (every `period_length` days or months from
 * `reference_date`) and YEARLY (period starts on each listed `MM-dd`).
 */
export const calendars = pgTable(
  'calendar',
  {
    ...codedColumns(),
    calendarType: text('calendar_type').notNull(),
    periodUnit: text('period_unit'),
    periodLength: integer('period_length'),
    referenceDate: date('reference_date', { mode: 'string' }),
    days: text('days').array(),
  },
  (t) => [
    check('calendar_type_valid', sql`${t.calendarType} in ('PERIOD', 'YEARLY')`),
    check(
      'calendar_period_shape',
      sql`${t.calendarType} <> 'PERIOD' or (${t.periodUnit} in ('DAY', 'MONTH') and ${t.periodLength} > 0)`,
    ),
  ],
)

/**
 * A billing cycle: its calendar, the delays (in days after the run's date) resolving a bill run's invoice date and
 * last transaction date, and the aggregation rules every bill run of the cycle inherits.
 */
export const billingCycles = pgTable(
  'billing_cycle',
  {
    ...codedColumns(),
    calendarId: refColumn('calendar_id')
      .notNull()
      .references(() => calendars.id),
    invoiceDateDelay: integer('invoice_date_delay').notNull().default(0),
    lastTransactionDateDelay: integer('last_transaction_date_delay').notNull().default(0),
    /** Days from an invoice's date to its due date. */
    dueDateDelay: integer('due_date_delay').notNull().default(30),
    ignoreOrders: boolean('ignore_orders').notNull().default(false),
    ignoreSubscriptions: boolean('ignore_subscriptions').notNull().default(false),
    dateAggregation: text('date_aggregation').notNull().default('NONE'),
    discountAggregation: boolean('discount_aggregation').notNull().default(true),
    disableAggregation: boolean('disable_aggregation').notNull().default(false),
  },
  (t) => [check('billing_cycle_date_aggregation_valid', sql`${t.dateAggregation} in ('NONE', 'DAY', 'WEEK', 'MONTH')`)],
)

export const unitsOfMeasure = pgTable('unit_of_measure', {
  ...codedColumns(),
  symbol: text('symbol'),
  multiplicator: numeric('multiplicator', { precision: 23, scale: 12 }).notNull().default('1'),
  parentUnitId: refColumn('parent_unit_id'),
})

export const customFieldTemplates = pgTable('custom_field_template', {
  ...codedColumns(),
  appliesTo: text('applies_to').notNull(),
  fieldType: text('field_type').notNull(),
  storageType: text('storage_type').notNull().default('SINGLE'),
  entityClazz: text('entity_clazz'),
  valueRequired: boolean('value_required').notNull().default(false),
  defaultValue: text('default_value'),
})

/**
 * Attributes describe what a customer chooses when ordering a product (tier, region, ...): shared vocabulary that
 * products, pricing matrices and orders name, so reference data rather than one module's.
 */
export const attributes = pgTable(
  'attribute',
  {
    ...codedColumns(),
    attributeType: text('attribute_type').notNull(),
    attributeCategory: text('attribute_category').notNull().default('REGULAR'),
    disabled: boolean('disabled').notNull().default(false),
    allowedValues: text('allowed_values')
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    unitNbDecimal: integer('unit_nb_decimal').notNull().default(0),
  },
  (t) => [check('attribute_unit_nb_decimal_range', sql`${t.unitNbDecimal} between 0 and 12`)],
)
