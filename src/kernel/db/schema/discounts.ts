// The discounts module's tables: discount plans and their items.
import { boolean, check, integer, numeric, text, timestamp, unique } from 'drizzle-orm/pg-core'
import { pgTable } from 'drizzle-orm/pg-core'
import { sql } from 'drizzle-orm'
import { auditColumns, codedColumns, idColumn, refColumn } from './columns.ts'
import { accountingArticles } from './reference.ts'

/** Discount values: 18 integer digits, 12 decimals, as unit prices. */
const price = (name: string) => numeric(name, { precision: 30, scale: 12 })

/** Discount plans: DRAFT → ACTIVE (needs an item) → IN_USE (first order) → EXPIRED (initial quantity used). */
export const discountPlans = pgTable(
  'discount_plan',
  {
    ...codedColumns(),
    discountPlanType: text('discount_plan_type'),
    status: text('status').notNull().default('DRAFT'),
    statusDate: timestamp('status_date', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    initialQuantity: integer('initial_quantity').notNull().default(0),
    usedQuantity: integer('used_quantity').notNull().default(0),
    applicationLimit: integer('application_limit').notNull().default(0),
    automaticApplication: boolean('automatic_application').notNull().default(false),
    sequence: integer('sequence').notNull().default(0),
  },
  (t) => [
    check('discount_plan_status_valid', sql`${t.status} in ('DRAFT', 'ACTIVE', 'IN_USE', 'EXPIRED')`),
    check(
      'discount_plan_quantities',
      sql`${t.initialQuantity} >= 0 and ${t.usedQuantity} >= 0 and ${t.applicationLimit} >= 0`,
    ),
  ],
)

export const discountPlanItems = pgTable(
  'discount_plan_item',
  {
    id: idColumn(),
    discountPlanId: refColumn('discount_plan_id')
      .notNull()
      .references(() => discountPlans.id, { onDelete: 'cascade' }),
    code: text('code').notNull(),
    description: text('description'),
    discountPlanItemType: text('discount_plan_item_type').notNull(),
    discountValue: price('discount_value').notNull(),
    accountingArticleId: refColumn('accounting_article_id').references(() => accountingArticles.id),
    sequence: integer('sequence').notNull().default(0),
    ...auditColumns(),
  },
  (t) => [
    unique('discount_plan_item_code_uq').on(t.discountPlanId, t.code),
    check('discount_plan_item_type_valid', sql`${t.discountPlanItemType} in ('PERCENTAGE', 'FIXED')`),
    check('discount_plan_item_value_positive', sql`${t.discountValue} > 0`),
    check(
      'discount_plan_item_percentage_range',
      sql`${t.discountPlanItemType} <> 'PERCENTAGE' or ${t.discountValue} <= 100`,
    ),
  ],
)
