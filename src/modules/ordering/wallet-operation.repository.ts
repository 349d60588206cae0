import { sql, type SQL } from 'drizzle-orm'
import { present } from '../../kernel/invariant.ts'
import { rows, type Db } from '../../kernel/db/database.ts'
import { wallets, type walletOperations } from '../../kernel/db/schema/index.ts'

export type WalletOperationValues = typeof walletOperations.$inferInsert

/** The columns written, with their property and SQL type: each is sent as one array parameter. */
const COLUMNS: readonly [keyof WalletOperationValues, string, string][] = [
  ['id', 'id', 'bigint'],
  ['code', 'code', 'text'],
  ['description', 'description', 'text'],
  ['status', 'status', 'text'],
  ['chargeType', 'charge_type', 'text'],
  ['operationDate', 'operation_date', 'date'],
  ['startDate', 'start_date', 'date'],
  ['endDate', 'end_date', 'date'],
  ['quantity', 'quantity', 'numeric'],
  ['unitAmountWithoutTax', 'unit_amount_without_tax', 'numeric'],
  ['unitAmountWithTax', 'unit_amount_with_tax', 'numeric'],
  ['amountWithoutTax', 'amount_without_tax', 'numeric'],
  ['amountTax', 'amount_tax', 'numeric'],
  ['amountWithTax', 'amount_with_tax', 'numeric'],
  ['taxPercent', 'tax_percent', 'numeric'],
  ['taxId', 'tax_id', 'bigint'],
  ['accountingArticleId', 'accounting_article_id', 'bigint'],
  ['currencyId', 'currency_id', 'bigint'],
  ['walletId', 'wallet_id', 'bigint'],
  ['chargeInstanceId', 'charge_instance_id', 'bigint'],
  ['subscriptionId', 'subscription_id', 'bigint'],
  ['billingAccountId', 'billing_account_id', 'bigint'],
  ['sellerId', 'seller_id', 'bigint'],
  ['orderId', 'order_id', 'bigint'],
  ['pricingVersionId', 'pricing_version_id', 'bigint'],
  ['discountPlanId', 'discount_plan_id', 'bigint'],
  ['discountPlanItemId', 'discount_plan_item_id', 'bigint'],
  ['discountPlanInstanceId', 'discount_plan_instance_id', 'bigint'],
  ['discountedWalletOperationId', 'discounted_wallet_operation_id', 'bigint'],
  ['explanation', 'explanation', 'text'],
  ['creator', 'creator', 'text'],
]

/** A PostgreSQL array literal of text values (NULL for absent ones). */
function arrayLiteral(values: readonly unknown[]): string {
  const items = values.map((v) =>
    v === null || v === undefined
      ? 'NULL'
      : `"${String(v as string | number)
          .replace(/\\/g, '\\\\')
          .replace(/"/g, '\\"')}"`,
  )
  return `{${items.join(',')}}`
}

/** Rows per statement: bounded so one statement's arrays stay a few megabytes. */
const BATCH = 5000

/**
 * Ids for wallet operations about to be written, taken from the table's sequence: a discount can name the operation
 * it discounts before either is inserted.
 */
export async function reserveWalletOperationIds(db: Db, count: number): Promise<number[]> {
  if (count === 0) return []
  const found = await rows<{ id: string | number }>(
    db,
    sql`select nextval(pg_get_serial_sequence('wallet_operation', 'id'))::text as id from generate_series(1, ${count})`,
  )
  return found.map((r) => Number(r.id))
}

/**
 * Inserts wallet operations (ids included, see `reserveWalletOperationIds`): one statement per batch whose columns
 * are array parameters unnested by PostgreSQL, so the cost does not grow with a statement's parameter count.
 */
export async function insertWalletOperations(db: Db, values: readonly WalletOperationValues[]): Promise<void> {
  for (let start = 0; start < values.length; start += BATCH) {
    const batch = values.slice(start, start + BATCH)
    const arrays = COLUMNS.map(
      ([key, , type]) => sql`${arrayLiteral(batch.map((v) => v[key]))}::text[]::${sql.raw(type)}[]`,
    )
    await db.execute(sql`insert into wallet_operation (${sql.raw(COLUMNS.map(([, column]) => column).join(', '))})
      select * from unnest(${sql.join(arrays, sql`, `)})`)
  }
}

/**
 * The insert of wallet operations whose ids come from the table's sequence (the column's default), as a VALUES list
 * of one parameter per column — for a statement of fixed shape sent on every request, whose prepared plan PostgreSQL
 * then keeps (it knows the row count) — writing nothing when `condition` is false. For a data-modifying WITH query.
 */
export function walletOperationsInsert(values: readonly Omit<WalletOperationValues, 'id'>[], condition: SQL): SQL {
  const columns = COLUMNS.filter(([key]) => key !== 'id')
  const row = (v: Omit<WalletOperationValues, 'id'>) =>
    sql`(${sql.join(
      columns.map(([key, , type]) => sql`${(v as WalletOperationValues)[key] ?? null}::${sql.raw(type)}`),
      sql`, `,
    )})`
  return sql`insert into wallet_operation (${sql.raw(columns.map(([, column]) => column).join(', '))})
    select * from (values ${sql.join(values.map(row), sql`, `)}) as v where ${condition}`
}

/**
 * The principal postpaid wallet of a user account, created on first use: one read when it exists; otherwise an insert
 * that does nothing when a concurrent first use inserted it, then the read again (which sees either one).
 */
export async function principalWallet(db: Db, userAccountId: number, actor: string): Promise<number> {
  const find = async () =>
    (
      await db
        .select({ id: wallets.id })
        .from(wallets)
        .where(sql`${wallets.userAccountId} = ${userAccountId} and ${wallets.code} = 'PRINCIPAL'`)
    )[0]
  const existing = await find()
  if (existing) return existing.id
  await db
    .insert(wallets)
    .values({ userAccountId, code: 'PRINCIPAL', description: 'Principal postpaid wallet', creator: actor })
    .onConflictDoNothing()
  // Inserted just above unless a concurrent first use inserted it: committed by now either way, or this one's own.
  return present(await find(), `principal wallet of user account ${userAccountId}`).id
}
