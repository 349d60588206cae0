import { systemCaller } from '../src/kernel/caller.ts'
import { createOutbox } from '../src/kernel/events/index.ts'
/**
 * Rating benchmark (issue 7, item 8), on a PostgreSQL server:
 *
 * 1. preview and placement (`autoValidate=true`) of one order of 10 products — FLAT, MATRIX and FORMULA charges, a
 *    one-shot and a recurring charge each, three discount plans (order, offer and product level) — driven over HTTP by
 *    autocannon on loopback: requests/s, p50 and p99;
 * 2. recurring rating of 100,000 charge instances (10,000 orders of 10 recurring charges with the same discounts,
 *    one ended period each): charge instances rated per second, wallet operations written per second.
 *
 * Baselines, measured in the same run: the preview against a Query API get by id through the same hooks, in
 * alternating rounds; recurring rating against `INSERT … SELECT … generate_series` writing as many wallet-operation
 * rows in statements of the same size. (Placement has no baseline yet.)
 *
 *   BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test), BENCH_DURATION_SEC (default 8),
 *   BENCH_CONNECTIONS (default 10), BENCH_ORDERS (default 10000), BENCH_RATING_CONCURRENCY (default 4),
 *   BENCH_ROUNDS (default 2: alternating rounds of each case and its baseline), BENCH_CASES (default
 *   preview,placement,recurring: the cases run, e.g. one at a time under `node --cpu-prof`)
 */
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import type { AddressInfo } from 'node:net'
import pg from 'pg'
import pino from 'pino'
import { sql } from 'drizzle-orm'
import { buildApp } from '../src/app.ts'
import { systemClock } from '../src/kernel/clock.ts'
import { loadConfig } from '../src/kernel/config.ts'
import { one, openPostgres, rows, type Db } from '../src/kernel/db/database.ts'
import { migrate } from '../src/kernel/db/migrate.ts'
import { JobRuntime } from '../src/kernel/jobs/job-runtime.ts'
import { seedAccountsDemo } from '../src/modules/accounts/demo-data.ts'
import { createCatalogModule } from '../src/modules/catalog/index.ts'
import { seedCatalogDemo } from '../src/modules/catalog/demo-data.ts'
import { rateDueRecurringCharges } from '../src/modules/ordering/index.ts'
import { load, mergeRounds, type LoadResult } from './load.ts'
import { printStatements } from './statements.ts'

const serverUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
const durationSec = Number(process.env.BENCH_DURATION_SEC ?? 8)
const connections = Number(process.env.BENCH_CONNECTIONS ?? 10)
const orderCount = Number(process.env.BENCH_ORDERS ?? 10_000)
const ratingConcurrency = Number(process.env.BENCH_RATING_CONCURRENCY ?? 4)
const rounds = Number(process.env.BENCH_ROUNDS ?? 2)
/** The cases run, a comma-separated subset of preview, placement, recurring (all by default): profiles run one. */
/** BENCH_PROFILE=1: each case alone, without its baseline, so a `node --cpu-prof` profile holds only the case. */
const profiling = process.env.BENCH_PROFILE === '1'
const cases = new Set((process.env.BENCH_CASES ?? 'preview,placement,recurring').split(',').map((c) => c.trim()))
const SECRET = 'bench-admin-secret-0123456789'
const PRODUCTS = 10
const DEMO = 'bench'

/** 10 products, each a one-shot (FLAT or FORMULA) and a recurring (MATRIX or FLAT) charge; one offer; 3 plans. */
async function buildCatalog(db: Db): Promise<void> {
  const catalog = createCatalogModule({
    db,
    actorOf: () => ({ username: DEMO }),
    outbox: createOutbox({ clock: systemClock }),
  })
  const { charges, pricing, products, discounts } = catalog
  const from = '2020-01-01'
  for (let k = 1; k <= PRODUCTS; k++) {
    const setup = `BCH_SETUP_${k}`
    await charges.create(
      {
        code: setup,
        type: 'ONESHOT',
        invoiceSubCategory: 'SUB_ONESHOT',
        taxClass: 'NORMAL',
        description: `Setup ${k}`,
      },
      DEMO,
    )
    await pricing.saveDraft(
      setup,
      k % 2 === 0
        ? { pricingModel: 'FLAT', currency: 'EUR', validFrom: from, price: `${10 + k}.99` }
        : {
            pricingModel: 'FORMULA',
            currency: 'EUR',
            validFrom: from,
            price_fx: `#{quantity >= 2 ? ${k}.5 : ${k + 1}}`,
          },
      DEMO,
    )
    await pricing.publish(setup, DEMO)
    const monthly = `BCH_MONTHLY_${k}`
    await charges.create(
      {
        code: monthly,
        type: 'RECURRING',
        invoiceSubCategory: 'SUB_RECURRING',
        taxClass: 'NORMAL',
        billingCalendar: 'MONTHLY',
        description: `Monthly ${k}`,
      },
      DEMO,
    )
    await pricing.saveDraft(
      monthly,
      k % 3 === 0
        ? { pricingModel: 'FLAT', currency: 'EUR', validFrom: from, price: `${k}.90` }
        : {
            pricingModel: 'MATRIX',
            currency: 'EUR',
            validFrom: from,
            columns: [
              { code: 'tier', type: 'String', position: 0, attributeCode: 'TIER' },
              { code: 'region', type: 'String', position: 1, attributeCode: 'REGION' },
            ],
            rows: [
              ['GOLD', 'EU', 50 + k],
              ['GOLD', '', 55 + k],
              ['SILVER', 'EU', 30 + k],
              ['SILVER', '', 35 + k],
              ['', '', 20 + k],
            ].map(([tier, region, price]) => ({
              price: `${price as number}.49`,
              values: [
                { dimensionCode: 'tier', stringValue: tier as string },
                { dimensionCode: 'region', stringValue: region as string },
              ],
            })),
          },
      DEMO,
    )
    await pricing.publish(monthly, DEMO)
    const product = `BPR_${k}`
    await catalog.records.products.create({ code: product, name: `Product ${k}` }, { username: DEMO })
    await products.createVersion(product, { validFrom: from }, DEMO)
    for (const attribute of ['TIER', 'REGION']) await products.linkAttribute(product, 1, attribute)
    for (const charge of [setup, monthly]) await products.linkCharge(product, 1, charge)
    await products.publish(product, 1, DEMO)
  }
  const plan = async (code: string, type: string | undefined, sequence: number, item: Record<string, string>) => {
    await discounts.create({ code, ...(type ? { discountPlanType: type } : {}), sequence }, DEMO)
    await discounts.createItem(
      code,
      { code: `${code}_ITEM`, accountingArticle: 'ART_DISCOUNT', ...item } as Parameters<
        typeof discounts.createItem
      >[1],
      DEMO,
    )
    await discounts.activate(code, DEMO)
  }
  await plan('BDP_OFFER', 'OFFER', 1, { discountPlanItemType: 'PERCENTAGE', discountValue: '10' })
  await plan('BDP_PRODUCT', 'PRODUCT', 2, { discountPlanItemType: 'FIXED', discountValue: '3' })
  await plan('BDP_ORDER', undefined, 3, { discountPlanItemType: 'PERCENTAGE', discountValue: '5' })
  for (let k = 1; k <= PRODUCTS; k++) await products.linkDiscountPlan(`BPR_${k}`, 'BDP_PRODUCT')
  await catalog.offers.create(
    {
      code: 'BOF_10',
      lifeCycleStatus: 'ACTIVE',
      offerComponents: Array.from({ length: PRODUCTS }, (_v, i) => ({ productCode: `BPR_${i + 1}` })),
      discountPlans: ['BDP_OFFER'],
    },
    systemCaller(DEMO),
  )
}

/** The benchmark order: 10 products of BOF_10 with attributes and the three plans; without codes, Obol makes them up. */
function orderBody(code: string | undefined, subscriptionCode: string | undefined, subscriptionDate: string) {
  return {
    ...(code ? { code } : {}),
    orderType: 'NEW',
    sellerCode: 'MAIN',
    billingAccountCode: 'BA_001',
    userAccountCode: 'UA_001',
    discountPlanCodes: ['BDP_ORDER'],
    orderOffers: [
      {
        ...(subscriptionCode ? { subscriptionCode } : {}),
        offerTemplateCode: 'BOF_10',
        subscriptionDate,
        discountPlanCodes: ['BDP_OFFER'],
        orderProducts: Array.from({ length: PRODUCTS }, (_v, i) => ({
          productCode: `BPR_${i + 1}`,
          quantity: 1 + (i % 3),
          orderAttributes: [
            { attributeCode: 'TIER', stringValue: ['GOLD', 'SILVER', 'BRONZE'][i % 3]! },
            { attributeCode: 'REGION', stringValue: ['EU', 'US'][i % 2]! },
          ],
          discountPlanCodes: ['BDP_PRODUCT'],
        })),
      },
    ],
  }
}

/**
 * Copies a validated template order `count - 1` times in SQL (order, subscription, product instances, its ACTIVE
 * recurring charge instances and discount plan instances with their state): the orders a long-running tenant has.
 */
async function cloneOrders(db: Db, template: string, count: number): Promise<void> {
  await db.execute(sql`insert into customer_order (code, order_type, status, seller_id, billing_account_id, user_account_id,
      order_date, validated_at, request, creator)
    select 'BENCH_O_' || g, o.order_type, o.status, o.seller_id, o.billing_account_id, o.user_account_id, o.order_date,
      o.validated_at, o.request, 'bench'
    from customer_order o cross join generate_series(2, ${count}) g where o.code = ${template}`)
  await db.execute(sql`insert into subscription (code, status, subscription_date, offer_template_id, seller_id,
      user_account_id, order_id, activation_date, creator)
    select s.code || '_' || g, s.status, s.subscription_date, s.offer_template_id, s.seller_id, s.user_account_id,
      (select id from customer_order where code = 'BENCH_O_' || g), s.activation_date, 'bench'
    from subscription s join customer_order o on o.id = s.order_id cross join generate_series(2, ${count}) g
    where o.code = ${template}`)
  await db.execute(sql`insert into product_instance (code, subscription_id, product_id, product_version_id, status,
      quantity, attributes, creator)
    select pi.code, ns.id, pi.product_id, pi.product_version_id, pi.status, pi.quantity, pi.attributes, 'bench'
    from product_instance pi join subscription s on s.id = pi.subscription_id join customer_order o on o.id = s.order_id
      join subscription ns on ns.code like s.code || '\\_%' and ns.order_id <> o.id
    where o.code = ${template}`)
  await db.execute(sql`insert into charge_instance (code, description, status, charge_id, charge_type, subscription_id,
      product_instance_id, wallet_id, quantity, subscription_date, charged_to_date, next_rating_date, creator)
    select ci.code, ci.description, ci.status, ci.charge_id, ci.charge_type, ns.id, npi.id, ci.wallet_id, ci.quantity,
      ci.subscription_date, ci.charged_to_date, ci.next_rating_date, 'bench'
    from charge_instance ci join subscription s on s.id = ci.subscription_id join customer_order o on o.id = s.order_id
      join product_instance pi on pi.id = ci.product_instance_id
      join subscription ns on ns.code like s.code || '\\_%' and ns.order_id <> o.id
      join product_instance npi on npi.subscription_id = ns.id and npi.code = pi.code
    where o.code = ${template} and ci.charge_type = 'RECURRING'`)
  await db.execute(sql`insert into discount_plan_instance (order_id, subscription_id, product_instance_id,
      discount_plan_id, level, automatic, position, status, state, creator)
    select ns.order_id, case when d.subscription_id is null then null else ns.id end, npi.id, d.discount_plan_id,
      d.level, d.automatic, d.position, d.status, d.state, 'bench'
    from discount_plan_instance d join customer_order o on o.id = d.order_id
      join subscription s on s.order_id = o.id
      join subscription ns on ns.code like s.code || '\\_%' and ns.order_id <> o.id
      left join product_instance pi on pi.id = d.product_instance_id
      left join product_instance npi on npi.subscription_id = ns.id and npi.code = pi.code
    where o.code = ${template}`)
  await db.execute(sql`analyze`)
}

/** Recurring rating's batch: the charge instances one transaction rates (rateDueRecurringCharges' default). */
const RATING_BATCH = 100

/**
 * The baseline of recurring rating: `count` wallet-operation rows written by `INSERT … SELECT` from one rated row and
 * `generate_series`, in statements of the size recurring rating writes (a batch of charge instances' operations),
 * `concurrency` at once. Returns the seconds taken; the rows are deleted afterwards.
 */
async function rawWalletOperationInserts(db: Db, count: number, concurrency: number): Promise<number> {
  const columns = (
    await rows<{ name: string }>(
      db,
      sql`select column_name as name from information_schema.columns
        where table_name = 'wallet_operation' and column_name <> 'id' and is_generated = 'NEVER'
        order by ordinal_position`,
    )
  ).map((c) => c.name)
  const template = await one<{ id: string; per: string }>(
    db,
    sql`select min(id)::text as id, (count(*)::numeric / count(distinct charge_instance_id))::text as per
      from wallet_operation where charge_type = 'RECURRING'`,
  )
  // Rows a batch of RATING_BATCH charge instances writes: their periods and the discounts on them.
  const perStatement = Math.max(1, Math.round(Number(template!.per) * RATING_BATCH))
  const list = sql.raw(columns.map((c) => `"${c}"`).join(', '))
  const values = sql.raw(columns.map((c) => (c === 'code' ? `w.code || '_RAW_' || g` : `w."${c}"`)).join(', '))
  let remaining = count
  const started = performance.now()
  const worker = async () => {
    while (remaining > 0) {
      const n = Math.min(perStatement, remaining)
      remaining -= n
      await db.execute(sql`insert into wallet_operation (${list})
        select ${values} from wallet_operation w cross join generate_series(1, ${n}) g where w.id = ${template!.id}`)
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  const seconds = (performance.now() - started) / 1000
  await db.execute(sql`delete from wallet_operation where code like '%\_RAW\_%'`)
  return seconds
}

/** The template's columns a baseline wallet operation copies as they are, with their SQL types. */
const COPIED_OPERATION_COLUMNS: readonly [string, string][] = [
  ['code', 'text'],
  ['description', 'text'],
  ['status', 'text'],
  ['charge_type', 'text'],
  ['operation_date', 'date'],
  ['start_date', 'date'],
  ['end_date', 'date'],
  ['quantity', 'numeric'],
  ['unit_amount_without_tax', 'numeric'],
  ['unit_amount_with_tax', 'numeric'],
  ['amount_without_tax', 'numeric'],
  ['amount_tax', 'numeric'],
  ['amount_with_tax', 'numeric'],
  ['tax_percent', 'numeric'],
  ['tax_id', 'bigint'],
  ['accounting_article_id', 'bigint'],
  ['currency_id', 'bigint'],
  ['wallet_id', 'bigint'],
  ['billing_account_id', 'bigint'],
  ['seller_id', 'bigint'],
  ['pricing_version_id', 'bigint'],
  ['discount_plan_id', 'bigint'],
  ['discount_plan_item_id', 'bigint'],
  ['explanation', 'text'],
]

/** One wallet operation of the template order, its amounts as text, its links by code and position. */
interface TemplateOperation {
  values: Record<string, string | null>
  productCode: string
  chargeCode: string
  planPosition: number | null
  /** The position (in `operations`) of the operation this one discounts. */
  discounts: number | null
}

/** A template row as `to_jsonb` gives it (column names as keys). */
type Row = Record<string, unknown>

/**
 * The rows of a placed order the placement baseline writes again, read once before the load: the order, its one offer
 * and subscription, its products, plan choices and instances, each with what links it (positions and codes), and
 * its wallet operations.
 */
interface PlacedTemplate {
  order: Row
  subscription: Row
  orderOffer: Row
  orderProducts: Row[]
  orderPlans: { row: Row; productPosition: number | null }[]
  products: { row: Row; orderProductPosition: number | null }[]
  charges: { row: Row; productCode: string | null }[]
  planInstances: { row: Row; productCode: string | null }[]
  planIds: number[]
  operations: TemplateOperation[]
}

async function placedTemplate(db: Db, code: string): Promise<PlacedTemplate> {
  const head = await one<{ order: Row; subscription: Row; order_offer: Row; plan_ids: number[] }>(
    db,
    sql`select to_jsonb(o) as order, to_jsonb(s) as subscription, to_jsonb(oo) as order_offer,
        array(select distinct discount_plan_id::int from discount_plan_instance where order_id = o.id) as plan_ids
      from customer_order o join order_offer oo on oo.order_id = o.id join subscription s on s.id = oo.subscription_id
      where o.code = ${code}`,
  )
  const orderId = Number(head!.order.id)
  const orderOfferId = Number(head!.order_offer.id)
  const subscriptionId = Number(head!.subscription.id)
  const orderProducts = await rows<{ row: Row }>(
    db,
    sql`select to_jsonb(t) as row from order_product t where t.order_offer_id = ${orderOfferId} order by t.position`,
  )
  const orderPlans = await rows<{ row: Row; product_position: number | null }>(
    db,
    sql`select to_jsonb(t) as row, tp.position as product_position
      from order_discount_plan t left join order_product tp on tp.id = t.order_product_id
      where t.order_id = ${orderId} order by t.id`,
  )
  const products = await rows<{ row: Row; order_product_position: number | null }>(
    db,
    sql`select to_jsonb(t) as row, tp.position as order_product_position
      from product_instance t left join order_product tp on tp.id = t.order_product_id
      where t.subscription_id = ${subscriptionId} order by t.id`,
  )
  const charges = await rows<{ row: Row; product_code: string | null }>(
    db,
    sql`select to_jsonb(t) as row, tp.code as product_code
      from charge_instance t left join product_instance tp on tp.id = t.product_instance_id
      where t.subscription_id = ${subscriptionId} order by t.id`,
  )
  const planInstances = await rows<{ row: Row; product_code: string | null }>(
    db,
    sql`select to_jsonb(t) as row, tp.code as product_code
      from discount_plan_instance t left join product_instance tp on tp.id = t.product_instance_id
      where t.order_id = ${orderId} order by t.id`,
  )
  const columns = sql.raw(COPIED_OPERATION_COLUMNS.map(([column]) => `w.${column}::text`).join(', '))
  const operations = await rows<Record<string, string | null>>(
    db,
    sql`select w.id::text as template_id, w.discounted_wallet_operation_id::text as template_discounted,
        tpi.code as product_code, tci.code as charge_code, tdpi.position::text as plan_position, ${columns}
      from wallet_operation w join charge_instance tci on tci.id = w.charge_instance_id
        join product_instance tpi on tpi.id = tci.product_instance_id
        left join discount_plan_instance tdpi on tdpi.id = w.discount_plan_instance_id
      where w.order_id = ${orderId} order by w.id`,
  )
  const positionOf = new Map(operations.map((o, i) => [o.template_id, i]))
  return {
    order: head!.order,
    subscription: head!.subscription,
    orderOffer: head!.order_offer,
    orderProducts: orderProducts.map((r) => r.row),
    orderPlans: orderPlans.map((r) => ({ row: r.row, productPosition: r.product_position })),
    products: products.map((r) => ({ row: r.row, orderProductPosition: r.order_product_position })),
    charges: charges.map((r) => ({ row: r.row, productCode: r.product_code })),
    planInstances: planInstances.map((r) => ({ row: r.row, productCode: r.product_code })),
    planIds: head!.plan_ids,
    operations: operations.map((o) => ({
      values: o,
      productCode: o.product_code!,
      chargeCode: o.charge_code!,
      planPosition: o.plan_position === null ? null : Number(o.plan_position),
      discounts: o.template_discounted === null ? null : positionOf.get(o.template_discounted)!,
    })),
  }
}

/** A PostgreSQL array literal of text values (NULL for null). */
function arrayLiteral(values: readonly (string | number | null)[]): string {
  return `{${values.map((v) => (v === null ? 'NULL' : `"${String(v).replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`)).join(',')}}`
}

/**
 * Inserts rows given as JSON objects (template rows with their links replaced) into `table` in one statement, through
 * `jsonb_populate_recordset`: every column the rows carry except the id and the audit timestamps (new ids from the
 * sequence, `created` and `updated` now). Returns the `returning` columns of each row.
 */
async function insertJsonRows<T>(tx: Db, table: string, values: readonly Row[], returning: string): Promise<T[]> {
  if (values.length === 0) return []
  const columns = Object.keys(values[0]!)
    .filter((c) => !['id', 'created', 'updated'].includes(c))
    .join(', ')
  return rows<T>(
    tx,
    sql`insert into ${sql.raw(table)} (${sql.raw(columns)})
      select ${sql.raw(columns)} from jsonb_populate_recordset(null::${sql.raw(table)}, ${JSON.stringify(values)}::jsonb)
      returning ${sql.raw(returning)}`,
  )
}

/**
 * The baseline of placement: the rows a validated placement of the template order writes — the order, its offer and
 * products, its discount plan choices, the subscription, product and charge instances, discount plan instances with
 * their states, the wallet operations of the one-shot charges and their discounts, and the plans' use counts — by
 * hand-written SQL in one transaction, one statement a table, as placement writes them: values computed before (the
 * template's rows, read once before the load, with their links to the new rows set from the ids each insert
 * returns), nothing read from other tables. Wallet operations are sent as arrays and unnested, their ids drawn from
 * the sequence in the same statement. One offer per order, as the benchmark's.
 */
async function baselinePlacement(db: Db, template: PlacedTemplate, code: string, countUses = true): Promise<void> {
  const subscriptionCode = `${code}-1`
  await db.transaction(async (tx) => {
    const [order] = await insertJsonRows<{ id: number }>(
      tx,
      'customer_order',
      [{ ...template.order, code, creator: 'bench', validated_at: new Date().toISOString() }],
      'id::int',
    )
    const o = order!.id
    const [subscription] = await insertJsonRows<{ id: number }>(
      tx,
      'subscription',
      [{ ...template.subscription, code: subscriptionCode, order_id: o, creator: 'bench' }],
      'id::int',
    )
    const s = subscription!.id
    const [offer] = await insertJsonRows<{ id: number }>(
      tx,
      'order_offer',
      [{ ...template.orderOffer, order_id: o, subscription_id: s, subscription_code: subscriptionCode }],
      'id::int',
    )
    const oo = offer!.id
    const orderProducts = await insertJsonRows<{ id: number; position: number }>(
      tx,
      'order_product',
      template.orderProducts.map((row) => ({ ...row, order_offer_id: oo })),
      'id::int, position',
    )
    const orderProductAt = new Map(orderProducts.map((p) => [p.position, p.id]))
    await insertJsonRows(
      tx,
      'order_discount_plan',
      template.orderPlans.map(({ row, productPosition }) => ({
        ...row,
        order_id: o,
        order_offer_id: row.order_offer_id === null ? null : oo,
        order_product_id: productPosition === null ? null : orderProductAt.get(productPosition)!,
      })),
      'id',
    )
    const products = await insertJsonRows<{ id: number; code: string }>(
      tx,
      'product_instance',
      template.products.map(({ row, orderProductPosition }) => ({
        ...row,
        subscription_id: s,
        order_product_id: orderProductPosition === null ? null : orderProductAt.get(orderProductPosition)!,
        creator: 'bench',
      })),
      'id::int, code',
    )
    const productId = new Map(products.map((p) => [p.code, p.id]))
    const charges = await insertJsonRows<{ id: number; code: string; product_instance_id: number }>(
      tx,
      'charge_instance',
      template.charges.map(({ row, productCode }) => ({
        ...row,
        subscription_id: s,
        product_instance_id: productCode === null ? null : productId.get(productCode)!,
        creator: 'bench',
      })),
      'id::int, code, product_instance_id::int',
    )
    const plans = await insertJsonRows<{ id: number; position: number }>(
      tx,
      'discount_plan_instance',
      template.planInstances.map(({ row, productCode }) => ({
        ...row,
        order_id: o,
        subscription_id: row.subscription_id === null ? null : s,
        product_instance_id: productCode === null ? null : productId.get(productCode)!,
        creator: 'bench',
      })),
      'id::int, position',
    )
    const productCode = new Map(products.map((p) => [p.id, p.code]))
    const chargeId = new Map(charges.map((c) => [`${productCode.get(c.product_instance_id)}/${c.code}`, c.id]))
    const planId = new Map(plans.map((p) => [p.position, p.id]))
    const ops = template.operations
    const array = (values: (string | number | null)[], type: string) =>
      sql`${arrayLiteral(values)}::text[]::${sql.raw(type)}[]`
    const copied = COPIED_OPERATION_COLUMNS.map(([column, type]) =>
      array(
        ops.map((op) => op.values[column]!),
        type,
      ),
    )
    await tx.execute(sql`with ids as (
        select ord, nextval(pg_get_serial_sequence('wallet_operation', 'id')) as id
        from generate_series(1, ${ops.length}) as ord)
      insert into wallet_operation (id, charge_instance_id, discount_plan_instance_id, discounted_wallet_operation_id,
        subscription_id, order_id, creator, ${sql.raw(COPIED_OPERATION_COLUMNS.map(([column]) => column).join(', '))})
      select ids.id, v.charge_instance_id, v.discount_plan_instance_id, discounted.id, ${s}, ${o}, 'bench',
        ${sql.raw(COPIED_OPERATION_COLUMNS.map(([column]) => `v.${column}`).join(', '))}
      from unnest(
          ${array(
            ops.map((_, i) => i + 1),
            'int',
          )},
          ${array(
            ops.map((op) => chargeId.get(`${op.productCode}/${op.chargeCode}`)!),
            'bigint',
          )},
          ${array(
            ops.map((op) => (op.planPosition === null ? null : planId.get(op.planPosition)!)),
            'bigint',
          )},
          ${array(
            ops.map((op) => (op.discounts === null ? null : op.discounts + 1)),
            'int',
          )},
          ${sql.join(copied, sql`, `)})
        as v(ord, charge_instance_id, discount_plan_instance_id, discounts_ord,
          ${sql.raw(COPIED_OPERATION_COLUMNS.map(([column]) => column).join(', '))})
        join ids on ids.ord = v.ord
        left join ids discounted on discounted.ord = v.discounts_ord`)
    if (!countUses) return
    await tx.execute(sql`update discount_plan set used_quantity = used_quantity + 1, updated = now(), updater = 'bench'
      where id = any(${`{${template.planIds.join(',')}}`}::bigint[])`)
  })
}

/** Counts of the rows an order wrote, table by table: the baseline must write what placement writes. */
async function rowsOf(db: Db, code: string): Promise<Record<string, number>> {
  const found = await one<Record<string, number>>(
    db,
    sql`select
      (select count(*)::int from order_offer where order_id = o.id) as order_offer,
      (select count(*)::int from order_product p join order_offer oo on oo.id = p.order_offer_id where oo.order_id = o.id) as order_product,
      (select count(*)::int from order_discount_plan where order_id = o.id) as order_discount_plan,
      (select count(*)::int from subscription where order_id = o.id) as subscription,
      (select count(*)::int from product_instance pi join subscription s on s.id = pi.subscription_id where s.order_id = o.id) as product_instance,
      (select count(*)::int from charge_instance ci join subscription s on s.id = ci.subscription_id where s.order_id = o.id) as charge_instance,
      (select count(*)::int from discount_plan_instance where order_id = o.id) as discount_plan_instance,
      (select count(*)::int from wallet_operation where order_id = o.id) as wallet_operation,
      (select coalesce(sum(amount_with_tax), 0)::text from wallet_operation where order_id = o.id) as amount_with_tax
    from customer_order o where o.code = ${code}`,
  )
  return found!
}

/** Runs two measurements in alternating rounds (A B, B A, …) and merges each side's rounds as loadAlternating does. */
async function alternate(
  runs: readonly [() => Promise<LoadResult>, () => Promise<LoadResult>],
  count: number,
): Promise<[LoadResult, LoadResult]> {
  const results: [LoadResult[], LoadResult[]] = [[], []]
  for (let round = 0; round < count; round += 1) {
    for (const side of round % 2 === 0 ? [0, 1] : [1, 0]) results[side]!.push(await runs[side]!())
  }
  return [mergeRounds(results[0]), mergeRounds(results[1])]
}

const cell = (r: LoadResult) =>
  `${r.requestsPerSec.toFixed(0).padStart(6)} req/s  p50 ${String(r.p50).padStart(4)} ms  p99 ${String(r.p99).padStart(4)} ms`

async function main(): Promise<void> {
  const started = Date.now()
  const name = `obol_bench_rating_${process.pid}`
  const admin = new pg.Client({ connectionString: serverUrl })
  await admin.connect()
  await admin.query(`create database ${name}`)
  const url = new URL(serverUrl)
  url.pathname = `/${name}`
  const database = openPostgres(url.toString(), { max: 20 })
  try {
    await migrate(database.db)
    await seedAccountsDemo(database.db)
    await seedCatalogDemo(database.db)
    await buildCatalog(database.db)

    const config = loadConfig({ OBOL_ADMIN_CLIENT_SECRET: SECRET, LOG_LEVEL: 'silent' })
    const jobs = new JobRuntime({
      database,
      clock: systemClock,
      log: pino({ level: 'silent' }),
      heartbeatIntervalMs: 60_000,
      instanceStaleAfterMs: 600_000,
      timerPollIntervalMs: 60_000,
      worker: false,
      roles: 'api',
    })
    let template: PlacedTemplate | undefined
    const app = await buildApp({
      database,
      clock: systemClock,
      jobs,
      publicUrl: 'http://127.0.0.1',
      auth: config.auth,
      extraRoutes: (server) => {
        server.post(
          '/bench/baseline/placement',
          { config: { policy: { role: 'ordering.orders.manage' } }, schema: { hide: true } },
          async (request, reply) => {
            const query = request.query as { code?: string; uses?: string }
            const code = query.code ?? `BASE-${randomUUID().slice(0, 8).toUpperCase()}`
            await baselinePlacement(database.db, template!, code, query.uses !== 'false')
            return reply.code(201).send({ code })
          },
        )
      },
    })
    await app.server.listen({ port: 0, host: '127.0.0.1' })
    const base = `http://127.0.0.1:${(app.server.server.address() as AddressInfo).port}`
    const tokenResponse = await fetch(`${base}/auth/realms/obol/protocol/openid-connect/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: 'obol-admin', client_secret: SECRET }),
    })
    const token = ((await tokenResponse.json()) as { access_token: string }).access_token
    const headers = { authorization: `Bearer ${token}` }

    const today = new Date()
    const lastMonth = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth() - 1, 1)).toISOString().slice(0, 10)
    const previewBody = JSON.stringify(orderBody('BENCH_PREVIEW', 'BENCH_SUB', lastMonth))
    const placeBody = JSON.stringify(orderBody(undefined, undefined, lastMonth))
    const post = (path: string, body: string) =>
      fetch(`${base}${path}`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body })
    const preview = await post('/api/v1/orders/preview', previewBody)
    assert.equal(preview.status, 200, `preview answered ${preview.status}: ${await preview.clone().text()}`)
    const previewText = await preview.text()
    const previewed = JSON.parse(previewText) as { offers: { lines: unknown[] }[]; totalWithTax: number }
    process.stdout.write(
      `The order: ${PRODUCTS} products, ${previewed.offers[0]!.lines.length} preview lines, total with tax ` +
        `${previewed.totalWithTax}, a preview answer of ${Buffer.byteLength(previewText)} bytes\n`,
    )
    const placedAt = performance.now()
    const placed = await post('/api/v1/orders?autoValidate=true', previewBody)
    assert.equal(placed.status, 201, `placement answered ${placed.status}: ${await placed.clone().text()}`)
    process.stdout.write(`One placement alone: ${(performance.now() - placedAt).toFixed(0)} ms\n`)
    if (process.env.BENCH_STATEMENTS === '1') {
      // Statements per request: one preview and one placement alone.
      await printStatements('preview', async () => (await post('/api/v1/orders/preview', previewBody)).text())
      const another = JSON.stringify(orderBody(undefined, undefined, lastMonth))
      await printStatements('placement', async () => (await post('/api/v1/orders?autoValidate=true', another)).text())
    }
    const concurrent = await Promise.all(
      Array.from({ length: connections }, (_v, i) =>
        post(
          '/api/v1/orders?autoValidate=true',
          JSON.stringify(orderBody(`BENCH_WARM_${i}`, `BENCH_WARM_SUB_${i}`, lastMonth)),
        ),
      ),
    )
    for (const response of concurrent) assert.equal(response.status, 201, await response.clone().text())

    const lines = [
      '',
      `Rating, ${durationSec} s per HTTP run, ${connections} connections (PostgreSQL, autocannon on loopback):`,
    ]
    const ratios = [
      '',
      'Ratios (targets: preview ≥ 0.25 of get by id, placement ≥ 0.5 of its baseline, recurring rating ≥ 0.5 of the raw inserts):',
    ]
    if (cases.has('preview')) {
      // The preview against the cheapest authenticated request the server answers, a Query API get by id through
      // the same hooks (token, role, metrics), in alternating rounds: the ratio is the share of a request's budget
      // rating leaves.
      const account = await one<{ id: number }>(database.db, sql`select id from billing_account where code = 'BA_001'`)
      const getByIdUrl = `${base}/api/v1/query/billingAccount/${account!.id}`
      assert.equal((await fetch(getByIdUrl, { headers })).status, 200)
      // The server's own CPU time per request (this process, user and system), beside the rates: on 2 cores shared
      // with PostgreSQL and the load generator, it says what a request costs whatever the others take.
      const cpu = [0, 0]
      const served = [0, 0]
      const measured = (side: number, run: () => Promise<LoadResult>) => async () => {
        const before = process.cpuUsage()
        const result = await run()
        const used = process.cpuUsage(before)
        cpu[side] = (cpu[side] ?? 0) + (used.user + used.system) / 1000
        served[side] = (served[side] ?? 0) + result.requestsPerSec * result.durationSec
        return result
      }
      const [previewLoad, getByIdLoad] = await alternate(
        [
          measured(0, () =>
            load(`${base}/api/v1/orders/preview`, {
              headers,
              durationSec,
              connections,
              method: 'POST',
              body: previewBody,
            }),
          ),
          measured(1, () => load(getByIdUrl, { headers, durationSec: profiling ? 1 : durationSec, connections })),
        ],
        rounds,
      )
      const cpuPer = (side: number) => (cpu[side]! / served[side]!).toFixed(3)
      process.stdout.write(`preview   ${cell(previewLoad)}  server CPU ${cpuPer(0)} ms/request\n`)
      process.stdout.write(`get by id ${cell(getByIdLoad)}  server CPU ${cpuPer(1)} ms/request\n`)
      lines.push(
        `  preview of a 10-product order    ${cell(previewLoad)}  server CPU ${cpuPer(0)} ms/request`,
        `  get by id (baseline)             ${cell(getByIdLoad)}  server CPU ${cpuPer(1)} ms/request`,
      )
      ratios.push(
        `  preview / get by id                    ${(previewLoad.requestsPerSec / getByIdLoad.requestsPerSec).toFixed(2)}`,
      )
    }
    if (cases.has('placement')) {
      // Placement against the same rows written by hand-written SQL in one transaction, in alternating rounds.
      template = await placedTemplate(database.db, 'BENCH_PREVIEW')
      // Planner statistics for the tables the placements fill, as a long-running tenant has them.
      await database.db.execute(sql`analyze`)
      const copied = await post('/bench/baseline/placement?code=BENCH_BASELINE', '{}')
      assert.equal(copied.status, 201, await copied.clone().text())
      assert.deepEqual(await rowsOf(database.db, 'BENCH_BASELINE'), await rowsOf(database.db, 'BENCH_PREVIEW'))
      const [placeLoad, baselineLoad] = await alternate(
        [
          () =>
            load(`${base}/api/v1/orders?autoValidate=true`, {
              headers,
              durationSec,
              connections,
              method: 'POST',
              body: placeBody,
            }),
          () =>
            load(`${base}/bench/baseline/placement`, {
              headers,
              durationSec: profiling ? 1 : durationSec,
              connections,
              method: 'POST',
              body: '{}',
            }),
        ],
        rounds,
      )
      // Every order here counts a use of the same three plans: their rows are a queue for placement and baseline
      // alike (locked from the count to the commit). The baseline without that count shows what the queue costs.
      const unqueuedLoad = await load(`${base}/bench/baseline/placement?uses=false`, {
        headers,
        durationSec: profiling ? 1 : durationSec,
        connections,
        method: 'POST',
        body: '{}',
      })
      process.stdout.write(`placement ${cell(placeLoad)}\n`)
      process.stdout.write(`baseline  ${cell(baselineLoad)}\n`)
      process.stdout.write(`baseline without the plans' use counts ${cell(unqueuedLoad)}\n`)
      lines.push(
        `  placement (autoValidate=true)    ${cell(placeLoad)}`,
        `  the same rows by hand-written SQL ${cell(baselineLoad)}`,
        `  the same without the plans' use counts ${cell(unqueuedLoad)}`,
      )
      ratios.push(
        `  placement / its baseline               ${(placeLoad.requestsPerSec / baselineLoad.requestsPerSec).toFixed(2)}`,
        `  (placement / the baseline without use counts ${(placeLoad.requestsPerSec / unqueuedLoad.requestsPerSec).toFixed(2)})`,
      )
    }
    await app.server.close()

    if (cases.has('recurring')) {
      // Recurring rating: the template is the first placed order; the load's orders are billed too (counted apart).
      process.stdout.write(`Copying the order into ${orderCount.toLocaleString('en')} orders...\n`)
      await cloneOrders(database.db, 'BENCH_PREVIEW', orderCount)
      const due = await one<{ n: string }>(
        database.db,
        sql`select count(*)::text as n from charge_instance where status = 'ACTIVE' and charge_type = 'RECURRING'
          and next_rating_date <= current_date`,
      )
      const t0 = performance.now()
      const result = await rateDueRecurringCharges({ db: database.db, now: new Date(), concurrency: ratingConcurrency })
      const seconds = (performance.now() - t0) / 1000
      assert.equal(result.failed, 0)
      assert.equal(String(result.processed), due!.n)
      const raw = await rawWalletOperationInserts(database.db, result.walletOperations, ratingConcurrency)
      lines.push(
        `  recurring rating (${ratingConcurrency} transactions at once): ${result.processed.toLocaleString('en')} charge instances in ${seconds.toFixed(1)} s = ` +
          `${Math.round(result.processed / seconds).toLocaleString('en')} charge instances/s, ` +
          `${Math.round(result.walletOperations / seconds).toLocaleString('en')} wallet operations/s ` +
          `(${result.walletOperations.toLocaleString('en')} written)`,
        `  baseline: the same ${result.walletOperations.toLocaleString('en')} wallet operations by INSERT … SELECT … generate_series, ` +
          `${RATING_BATCH} charge instances' worth a statement, ${ratingConcurrency} at once: ` +
          `${Math.round(result.walletOperations / raw).toLocaleString('en')} wallet operations/s`,
      )
      ratios.push(`  recurring rating / raw inserts         ${(raw / seconds).toFixed(2)}`)
    }
    ratios.push(`  whole run: ${((Date.now() - started) / 1000).toFixed(0)} s`)
    process.stdout.write(`${[...lines, ...ratios].join('\n')}\n`)
  } finally {
    await database.close()
    await admin.query(`drop database if exists ${name} with (force)`)
    await admin.end()
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`)
  process.exit(1)
})
