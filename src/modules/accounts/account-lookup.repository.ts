/**
 * Lookups of user accounts and sellers other modules need (prepaid's wallets and reservations): by code, their
 * currency and seller, and a user account locked for the offer reservations that queue on it.
 */
import { sql } from 'drizzle-orm'
import { one, type Db } from '../../kernel/db/database.ts'
import { registry } from '../../kernel/model/index.ts'
import { sellerRestriction, type SellerCodes } from '../../kernel/model/row-security.ts'
import { sellerOfUserAccount, userAccountJoins } from './party-lookup.repository.ts'

const num = (value: unknown) => Number(value)

/** A user account's currency (its billing account's) and that currency's decimals. */
export async function currencyOfUserAccount(
  db: Db,
  userAccountId: number,
): Promise<{ code: string; minorUnits: number }> {
  const found = await one<{ code: string; minor_units: unknown }>(
    db,
    sql`select cur.code, cur.decimal_places as minor_units from (select ${userAccountId}::bigint as id) k
      ${userAccountJoins(sql`k.id`)}`,
  )
  return { code: found!.code, minorUnits: num(found!.minor_units) }
}

/** The seller a user account belongs to (through its billing account, customer account and customer). */
export async function sellerIdOfUserAccount(db: Db, userAccountId: number): Promise<number | null> {
  const found = await one<{ seller_id: unknown }>(
    db,
    sql`select ${sellerOfUserAccount(sql`${userAccountId}::bigint`)} as seller_id`,
  )
  return found && found.seller_id !== null ? num(found.seller_id) : null
}

export async function userAccountIdByCode(db: Db, code: string): Promise<number | undefined> {
  const found = await one<{ id: unknown }>(db, sql`select id from user_account where code = ${code}`)
  return found && num(found.id)
}

/**
 * A user account with its billing account code, locked: offer reservations of one account queue on it. One of a
 * seller outside `sellerCodes` (row-level security) is not found, and not locked.
 */
export async function lockUserAccount(
  db: Db,
  code: string,
  sellerCodes: SellerCodes,
): Promise<{ id: number; billingAccountCode: string } | undefined> {
  const visible = sellerRestriction(registry, registry.get('UserAccount'), 'ua', sellerCodes) ?? sql`true`
  const found = await one<{ id: unknown; billing_account_code: string }>(
    db,
    sql`select ua.id, ba.code as billing_account_code from user_account ua
      join billing_account ba on ba.id = ua.billing_account_id where ua.code = ${code} and ${visible} for update of ua`,
  )
  return found && { id: num(found.id), billingAccountCode: found.billing_account_code }
}

export async function sellerIdByCode(db: Db, code: string): Promise<number | undefined> {
  const found = await one<{ id: unknown }>(db, sql`select id from seller where code = ${code}`)
  return found && num(found.id)
}
