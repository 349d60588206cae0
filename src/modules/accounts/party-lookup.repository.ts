/**
 * The seller, billing account and user account of an order by code, with what rating needs of them (countries, the
 * billing currency and its minor units), in one statement.
 */
import { sql, type SQL } from 'drizzle-orm'
import { preparedRows, type Db } from '../../kernel/db/database.ts'
import { registry } from '../../kernel/model/index.ts'
import { sellerRestriction, type SellerCodes } from '../../kernel/model/row-security.ts'

export interface SellerRow {
  id: number
  code: string
  countryId: number | null
}

export interface BillingAccountRow {
  id: number
  code: string
  countryId: number
  currencyId: number
  currencyCode: string
  minorUnits: number
}

export interface UserAccountRow {
  id: number
  code: string
  billingAccountId: number
  billingAccountCode: string
}

/** Whether the row `t` of `entity` belongs to one of `codes` by its registry seller path (always when unrestricted). */
const within = (entity: string, codes: SellerCodes): SQL =>
  sellerRestriction(registry, registry.get(entity), 't', codes) ?? sql`true`

export interface OrderPartyRows {
  seller: SellerRow | undefined
  billingAccount: (BillingAccountRow & { ofSeller: boolean }) | undefined
  userAccount: (UserAccountRow & { ofSeller: boolean }) | undefined
  /** The value of the `alongside` expression, as text. */
  alongside: string | null
}

/**
 * The seller, billing account and user account of these codes as a caller restricted to `sellerCodes` may see them
 * (DECISIONS "General": row-level security; one outside the restriction reads as absent), each account with whether
 * it belongs to a customer of the seller `codes.sellerCode` (its registry seller path ends at it). `alongside` is an
 * expression read in the same statement, a round trip less for a caller that needs it too.
 */
export async function orderPartiesByCode(
  db: Db,
  codes: { sellerCode: string; billingAccountCode: string; userAccountCode: string },
  sellerCodes: SellerCodes,
  alongside: SQL = sql`null`,
): Promise<OrderPartyRows> {
  const ofSeller = [codes.sellerCode]
  // The same text for every order of a caller's restriction and `alongside`: prepared once per connection.
  const [found] = await preparedRows<{
    alongside: string | null
    seller: SellerRow | null
    billing_account: (BillingAccountRow & { ofSeller: boolean }) | null
    user_account: (UserAccountRow & { ofSeller: boolean }) | null
  }>(
    db,
    sql`select ${alongside}::text as alongside,
      (select json_build_object('id', t.id, 'code', t.code, 'countryId', t.country_id) from seller t
        where t.code = ${codes.sellerCode} and ${within('Seller', sellerCodes)}) as seller,
      (select json_build_object('id', t.id, 'code', t.code, 'countryId', t.country_id,
          'currencyId', t.trading_currency_id, 'currencyCode', c.code, 'minorUnits', c.decimal_places,
          'ofSeller', ${within('BillingAccount', ofSeller)})
        from billing_account t join trading_currency c on c.id = t.trading_currency_id
        where t.code = ${codes.billingAccountCode} and ${within('BillingAccount', sellerCodes)}) as billing_account,
      (select json_build_object('id', t.id, 'code', t.code, 'billingAccountId', t.billing_account_id,
          'billingAccountCode', b.code, 'ofSeller', ${within('UserAccount', ofSeller)})
        from user_account t join billing_account b on b.id = t.billing_account_id
        where t.code = ${codes.userAccountCode} and ${within('UserAccount', sellerCodes)}) as user_account`,
  )
  return {
    alongside: found!.alongside,
    seller: found!.seller ?? undefined,
    billingAccount: found!.billing_account ?? undefined,
    userAccount: found!.user_account ?? undefined,
  }
}

/** The seller and billing account a rating bills: their countries choose the tax, the account's currency prices. */
export interface BillingParties {
  readonly sellerId: number
  readonly sellerCode: string
  readonly sellerCountryId: number | null
  readonly billingAccountId: number
  readonly billingAccountCode: string
  readonly billingCountryId: number
  readonly currencyId: number
  readonly currencyCode: string
  readonly minorUnits: number
}

/**
 * The billing parties of another module's row, joined into its statement (one round trip, the same text every time,
 * so it stays one prepared statement): the seller `se` of `sellerId` and the billing account `ba` with its currency
 * `cur`, by `billingAccountId` or through the user account `ua` of `userAccountId` (each an SQL expression over the
 * statement's row). Select `billingPartiesColumns` and read them back with `billingPartiesOf`.
 */
export function billingPartiesJoins(by: { sellerId: SQL } & ({ billingAccountId: SQL } | { userAccountId: SQL })): SQL {
  if ('userAccountId' in by)
    return sql`join seller se on se.id = ${by.sellerId}
  ${userAccountJoins(by.userAccountId)}`
  return sql`join seller se on se.id = ${by.sellerId}
  join billing_account ba on ba.id = ${by.billingAccountId}
  join trading_currency cur on cur.id = ba.trading_currency_id`
}

/**
 * Joins the user account `ua` of `userAccountId` (an SQL expression over the statement's row), its billing account
 * `ba` and that account's currency `cur`: what a wallet shows of its account.
 */
export function userAccountJoins(userAccountId: SQL): SQL {
  return sql`join user_account ua on ua.id = ${userAccountId}
  join billing_account ba on ba.id = ua.billing_account_id
  join trading_currency cur on cur.id = ba.trading_currency_id`
}

/** The seller of the user account `userAccountId` (its customer's), as a scalar subquery. */
export function sellerOfUserAccount(userAccountId: SQL): SQL {
  return sql`(select c.seller_id from user_account ua join billing_account ba on ba.id = ua.billing_account_id
      join customer_account ca on ca.id = ba.customer_account_id join customer c on c.id = ca.customer_id
      where ua.id = ${userAccountId})`
}

/** The columns of the parties `billingPartiesJoins` joined. */
export const billingPartiesColumns = sql`se.id as seller_id, se.code as seller_code, se.country_id as seller_country_id,
  ba.id as billing_account_id, ba.code as billing_account_code, ba.country_id as billing_country_id,
  cur.id as currency_id, cur.code as currency_code, cur.decimal_places as minor_units`

/** The parties of a row selected with `billingPartiesColumns`. */
export function billingPartiesOf(r: Record<string, unknown>): BillingParties {
  return {
    sellerId: Number(r.seller_id),
    sellerCode: r.seller_code as string,
    sellerCountryId: r.seller_country_id === null ? null : Number(r.seller_country_id),
    billingAccountId: Number(r.billing_account_id),
    billingAccountCode: r.billing_account_code as string,
    billingCountryId: Number(r.billing_country_id),
    currencyId: Number(r.currency_id),
    currencyCode: r.currency_code as string,
    minorUnits: Number(r.minor_units),
  }
}
