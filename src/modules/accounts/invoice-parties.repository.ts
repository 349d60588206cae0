/**
 * What invoicing reads of the account hierarchy: the parties an invoice names, joined into its statements under fixed
 * aliases (seller `se`, billing account `ba`, customer account `ca`, customer `cu`: their columns are read through
 * them), their codes as scalar subqueries, a seller's ancestry for numbering, and the billing accounts of a cycle a
 * bill run works through. Each fragment is the text those statements had, so their plans do not change.
 */
import { sql, type SQL } from 'drizzle-orm'
import { one, rows, type Db } from '../../kernel/db/database.ts'
import { registry } from '../../kernel/model/index.ts'
import { sellerRestriction, type SellerCodes } from '../../kernel/model/row-security.ts'

const num = (value: unknown) => Number(value)
const joinKind = (left: boolean | undefined) => (left ? sql`left join` : sql`join`)

/** Joins the seller `se` of `sellerId` (an SQL expression over the statement's row); `left` keeps rows without one. */
export function sellerJoin(sellerId: SQL, options: { left?: boolean } = {}): SQL {
  return sql`${joinKind(options.left)} seller se on se.id = ${sellerId}`
}

/** Joins the billing account `ba` of `billingAccountId` (an SQL expression over the statement's row). */
export function billingAccountJoin(billingAccountId: SQL): SQL {
  return sql`join billing_account ba on ba.id = ${billingAccountId}`
}

/** Joins the customer account `ca` of `customerAccountId` (an SQL expression over the statement's row). */
export function customerAccountJoin(customerAccountId: SQL): SQL {
  return sql`join customer_account ca on ca.id = ${customerAccountId}`
}

/** Joins the customer `cu` of the customer account `ca` (joined before it). */
export const customerOfCustomerAccountJoin = sql`join customer cu on cu.id = ca.customer_id`

/**
 * The billing account `ba` as a from-item, for a statement whose other tables are joined to it (as `update … from`
 * lists them): `ba.billing_cycle_id` is its cycle.
 */
export const billingAccountFromItem = sql`billing_account ba`

/** The code of the billing account `billingAccountId`, as a scalar subquery. */
export function billingAccountCodeOf(billingAccountId: SQL): SQL {
  return sql`(select code from billing_account where id = ${billingAccountId})`
}

/** How many billing accounts a billing cycle bills, as a scalar subquery. */
export function billingAccountCountOfCycle(cycleId: SQL): SQL {
  return sql`(select count(*) from billing_account where billing_cycle_id = ${cycleId})`
}

/**
 * The recursive CTE `name` of sellers and their ancestors (20 levels at most: a loop in the hierarchy stops there):
 * for each row of `seeds` (its columns `origin_id` and `seller_id`), its seller at depth 0 then each parent one deeper, as
 * rows (origin_id, seller_id, parent_seller_id, depth). The statement starts `with recursive`.
 */
export function sellerAncestryCte(name: string, seeds: SQL): SQL {
  const chain = sql.raw(name)
  return sql`${chain} as (
        select x.origin_id, s.id as seller_id, s.parent_seller_id, 0 as depth
        from (${seeds}) x join seller s on s.id = x.seller_id
        union all
        select c.origin_id, p.id, p.parent_seller_id, c.depth + 1
        from ${chain} c join seller p on p.id = c.parent_seller_id where c.depth < 20
      )`
}

/** A cycle's billing accounts after `afterId`, by id, at most `limit`. */
export async function billingAccountsOfCycle(
  tx: Db,
  cycleId: number,
  afterId: number,
  limit: number,
): Promise<number[]> {
  const found = await rows<{ id: unknown }>(
    tx,
    sql`select id from billing_account where billing_cycle_id = ${cycleId} and id > ${afterId} order by id
      limit ${limit}`,
  )
  return found.map((r) => num(r.id))
}

export async function countBillingAccountsOfCycle(tx: Db, cycleId: number): Promise<number> {
  const found = await one<{ n: number }>(
    tx,
    sql`select count(*)::int as n from billing_account where billing_cycle_id = ${cycleId}`,
  )
  return found?.n ?? 0
}

/** A billing account by code (any case) as a caller restricted to `sellerCodes` sees it, with its cycle. */
export async function visibleBillingAccount(
  db: Db,
  code: string,
  sellerCodes: SellerCodes,
): Promise<{ id: number; billingCycleId: number } | undefined> {
  const restricted = sellerRestriction(registry, registry.get('BillingAccount'), 'ba', sellerCodes)
  const found = await one<{ id: unknown; billing_cycle_id: unknown }>(
    db,
    sql`select ba.id, ba.billing_cycle_id from billing_account ba where lower(ba.code) = lower(${code})
      ${restricted ? sql`and ${restricted}` : sql``}`,
  )
  return found && { id: num(found.id), billingCycleId: num(found.billing_cycle_id) }
}

/** A seller by code, any case, with its code as stored. */
export async function sellerByCodeAnyCase(db: Db, code: string): Promise<{ id: number; code: string } | undefined> {
  const found = await one<{ id: unknown; code: string }>(
    db,
    sql`select id, code from seller where lower(code) = lower(${code})`,
  )
  return found && { id: num(found.id), code: found.code }
}
