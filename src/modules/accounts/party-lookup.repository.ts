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
