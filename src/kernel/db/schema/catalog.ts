import { boolean, check, date, index, integer, jsonb, numeric, text, timestamp, unique } from 'drizzle-orm/pg-core'
import { pgTable } from 'drizzle-orm/pg-core'
import { sql } from 'drizzle-orm'
import { auditColumns, codedColumns, idColumn, refColumn } from './columns.ts'
import {
  accountingArticles,
  attributes,
  calendars,
  invoiceSubCategories,
  taxClasses,
  unitsOfMeasure,
} from './reference.ts'
import { sellers } from './accounts.ts'
import { discountPlans } from './discounts.ts'

/** Free units per calendar period: a USAGE charge naming one takes its units from the counter before the wallet. */
export const counterTemplates = pgTable(
  'counter_template',
  {
    id: idColumn(),
    code: text('code').notNull(),
    description: text('description'),
    calendarId: refColumn('calendar_id')
      .notNull()
      .references(() => calendars.id),
    ceiling: numeric('ceiling').notNull(),
    ...auditColumns(),
  },
  (t) => [
    unique('counter_template_code_uq').on(t.code),
    check('counter_template_ceiling_valid', sql`${t.ceiling} >= 0`),
  ],
)

/**
 * Charges (one table, discriminated by `charge_type`): RECURRING (needs a calendar), USAGE and ONESHOT (with its
 * one-shot type). DRAFT until its first pricing version is published, then ACTIVE.
 */
export const chargeTemplates = pgTable(
  'charge_template',
  {
    ...codedColumns(),
    type: text('charge_type').notNull(),
    oneShotType: text('one_shot_type'),
    status: text('status').notNull().default('DRAFT'),
    invoiceSubCategoryId: refColumn('invoice_sub_category_id')
      .notNull()
      .references(() => invoiceSubCategories.id),
    taxClassId: refColumn('tax_class_id')
      .notNull()
      .references(() => taxClasses.id),
    calendarId: refColumn('calendar_id').references(() => calendars.id),
    inputUnitOfMeasureId: refColumn('input_unit_of_measure_id').references(() => unitsOfMeasure.id),
    ratingUnitOfMeasureId: refColumn('rating_unit_of_measure_id').references(() => unitsOfMeasure.id),
    filterParam1: text('filter_param1'),
    counterTemplateId: refColumn('counter_template_id').references(() => counterTemplates.id),
    subscriptionProrata: boolean('subscription_prorata').notNull().default(false),
    accountingArticleId: refColumn('accounting_article_id')
      .notNull()
      .references(() => accountingArticles.id),
  },
  (t) => [
    check('charge_template_type_valid', sql`${t.type} in ('RECURRING', 'USAGE', 'ONESHOT')`),
    check('charge_template_status_valid', sql`${t.status} in ('DRAFT', 'ACTIVE')`),
    check('charge_template_recurring_calendar', sql`${t.type} <> 'RECURRING' or ${t.calendarId} is not null`),
    check(
      'charge_template_one_shot_type',
      sql`(${t.type} = 'ONESHOT') = (${t.oneShotType} is not null) and (${t.oneShotType} is null or ${t.oneShotType} in ('SUBSCRIPTION', 'TERMINATION', 'OTHER'))`,
    ),
  ],
)

export const products = pgTable('product', {
  ...codedColumns(),
  name: text('name'),
  productLine: text('product_line'),
})

/** Versions of a product: DRAFT (links editable) then PUBLISHED on an end-exclusive, non-overlapping timeline. */
export const productVersions = pgTable(
  'product_version',
  {
    id: idColumn(),
    productId: refColumn('product_id')
      .notNull()
      .references(() => products.id),
    version: integer('version').notNull(),
    status: text('status').notNull().default('DRAFT'),
    shortDescription: text('short_description'),
    validFrom: date('valid_from', { mode: 'string' }),
    validTo: date('valid_to', { mode: 'string' }),
    publishedAt: timestamp('published_at', { withTimezone: true, mode: 'date' }),
    ...auditColumns(),
  },
  (t) => [
    unique('product_version_number_uq').on(t.productId, t.version),
    check('product_version_status_valid', sql`${t.status} in ('DRAFT', 'PUBLISHED')`),
    check(
      'product_version_validity',
      sql`${t.validTo} is null or ${t.validFrom} is null or ${t.validTo} > ${t.validFrom}`,
    ),
  ],
)

export const productVersionAttributes = pgTable(
  'product_version_attribute',
  {
    id: idColumn(),
    productVersionId: refColumn('product_version_id')
      .notNull()
      .references(() => productVersions.id, { onDelete: 'cascade' }),
    attributeId: refColumn('attribute_id')
      .notNull()
      .references(() => attributes.id),
  },
  (t) => [
    unique('product_version_attribute_uq').on(t.productVersionId, t.attributeId),
    index('product_version_attribute_attribute_idx').on(t.attributeId),
  ],
)

export const productVersionCharges = pgTable(
  'product_version_charge',
  {
    id: idColumn(),
    productVersionId: refColumn('product_version_id')
      .notNull()
      .references(() => productVersions.id, { onDelete: 'cascade' }),
    chargeId: refColumn('charge_id')
      .notNull()
      .references(() => chargeTemplates.id),
  },
  (t) => [
    unique('product_version_charge_uq').on(t.productVersionId, t.chargeId),
    index('product_version_charge_charge_idx').on(t.chargeId),
  ],
)

/** Product-level discount plans: a plan selected on an order product must be linked to that product. */
export const productDiscountPlans = pgTable(
  'product_discount_plan',
  {
    id: idColumn(),
    productId: refColumn('product_id')
      .notNull()
      .references(() => products.id, { onDelete: 'cascade' }),
    discountPlanId: refColumn('discount_plan_id')
      .notNull()
      .references(() => discountPlans.id),
  },
  (t) => [
    unique('product_discount_plan_uq').on(t.productId, t.discountPlanId),
    index('product_discount_plan_plan_idx').on(t.discountPlanId),
  ],
)

/** Legacy model: a service groups charges; offers link services through offer service templates. */
export const serviceTemplates = pgTable('service_template', {
  ...codedColumns(),
  name: text('name'),
})

export const serviceChargeTemplates = pgTable(
  'service_charge_template',
  {
    id: idColumn(),
    serviceTemplateId: refColumn('service_template_id')
      .notNull()
      .references(() => serviceTemplates.id, { onDelete: 'cascade' }),
    chargeId: refColumn('charge_id')
      .notNull()
      .references(() => chargeTemplates.id),
  },
  (t) => [
    unique('service_charge_template_uq').on(t.serviceTemplateId, t.chargeId),
    index('service_charge_template_charge_idx').on(t.chargeId),
  ],
)

export const offerTemplateCategories = pgTable('offer_template_category', {
  ...codedColumns(),
  name: text('name'),
})

/**
 * Offers, shared by the v1 interface (`/api/v1/offerTemplates`) and the snake_case one. `life_cycle_status` holds
 * the backend status (IN_STUDY ... REJECTED); the portal words map onto it.
 */
export const offerTemplates = pgTable(
  'offer_template',
  {
    ...codedColumns(),
    name: text('name'),
    lifeCycleStatus: text('life_cycle_status').notNull().default('IN_DESIGN'),
    validFrom: timestamp('valid_from', { withTimezone: true, mode: 'date' }),
    validTo: timestamp('valid_to', { withTimezone: true, mode: 'date' }),
    autoEndOfEngagement: boolean('auto_end_of_engagement').notNull().default(false),
    attributes: jsonb('attributes').$type<Record<string, unknown>>().notNull().default({}),
  },
  (t) => [
    check(
      'offer_template_status_valid',
      sql`${t.lifeCycleStatus} in ('IN_STUDY', 'IN_DESIGN', 'IN_TEST', 'ACTIVE', 'LAUNCHED', 'RETIRED', 'OBSOLETE', 'REJECTED')`,
    ),
    check(
      'offer_template_validity',
      sql`${t.validTo} is null or ${t.validFrom} is null or ${t.validTo} > ${t.validFrom}`,
    ),
  ],
)

/** Offer components (new model): the products of an offer with their quantities. */
export const offerComponents = pgTable(
  'offer_component',
  {
    id: idColumn(),
    offerTemplateId: refColumn('offer_template_id')
      .notNull()
      .references(() => offerTemplates.id, { onDelete: 'cascade' }),
    productId: refColumn('product_id')
      .notNull()
      .references(() => products.id),
    mandatory: boolean('mandatory').notNull().default(false),
    defaultQuantity: numeric('default_quantity', { precision: 30, scale: 12 }).notNull().default('1'),
    minQuantity: numeric('min_quantity', { precision: 30, scale: 12 }),
    maxQuantity: numeric('max_quantity', { precision: 30, scale: 12 }),
    sequence: integer('sequence').notNull().default(0),
  },
  (t) => [
    unique('offer_component_uq').on(t.offerTemplateId, t.productId),
    index('offer_component_product_idx').on(t.productId),
  ],
)

/** Legacy model: the services of an offer. */
export const offerServiceTemplates = pgTable(
  'offer_service_template',
  {
    id: idColumn(),
    offerTemplateId: refColumn('offer_template_id')
      .notNull()
      .references(() => offerTemplates.id, { onDelete: 'cascade' }),
    serviceTemplateId: refColumn('service_template_id')
      .notNull()
      .references(() => serviceTemplates.id),
    mandatory: boolean('mandatory').notNull().default(false),
    sequence: integer('sequence').notNull().default(0),
  },
  (t) => [
    unique('offer_service_template_uq').on(t.offerTemplateId, t.serviceTemplateId),
    index('offer_service_template_service_idx').on(t.serviceTemplateId),
  ],
)

/** The discount plans an order may select for an offer. */
export const offerDiscountPlans = pgTable(
  'offer_discount_plan',
  {
    id: idColumn(),
    offerTemplateId: refColumn('offer_template_id')
      .notNull()
      .references(() => offerTemplates.id, { onDelete: 'cascade' }),
    discountPlanId: refColumn('discount_plan_id')
      .notNull()
      .references(() => discountPlans.id),
  },
  (t) => [
    unique('offer_discount_plan_uq').on(t.offerTemplateId, t.discountPlanId),
    index('offer_discount_plan_plan_idx').on(t.discountPlanId),
  ],
)

export const offerSellers = pgTable(
  'offer_seller',
  {
    id: idColumn(),
    offerTemplateId: refColumn('offer_template_id')
      .notNull()
      .references(() => offerTemplates.id, { onDelete: 'cascade' }),
    sellerId: refColumn('seller_id')
      .notNull()
      .references(() => sellers.id),
  },
  (t) => [unique('offer_seller_uq').on(t.offerTemplateId, t.sellerId), index('offer_seller_seller_idx').on(t.sellerId)],
)

export const offerCategories = pgTable(
  'offer_category',
  {
    id: idColumn(),
    offerTemplateId: refColumn('offer_template_id')
      .notNull()
      .references(() => offerTemplates.id, { onDelete: 'cascade' }),
    offerTemplateCategoryId: refColumn('offer_template_category_id')
      .notNull()
      .references(() => offerTemplateCategories.id),
  },
  (t) => [
    unique('offer_category_uq').on(t.offerTemplateId, t.offerTemplateCategoryId),
    index('offer_category_category_idx').on(t.offerTemplateCategoryId),
  ],
)
