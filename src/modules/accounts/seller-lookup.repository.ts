/**
 * The seller and user account codes another module's rows show (prepaid's reservations): a lookup, a scalar
 * subquery and joins, each the same text every time so a statement using it stays one prepared statement.
 */
import { sql, type SQL } from 'drizzle-orm'
import { one, rows, type Db } from '../../kernel/db/database.ts'
import { textArray } from '../../kernel/model/json.ts'

/** The code of a seller by id (undefined: no such seller). */
export async function sellerCodeById(db: Db, sellerId: number): Promise<string | undefined> {
  const found = await one<{ code: string }>(db, sql`select code from seller where id = ${sellerId}`)
  return found?.code
}

/** The code of the seller `sellerId` (an SQL expression over the statement's row), as a scalar subquery. */
export const sellerCodeOf = (sellerId: SQL): SQL<string> =>
  sql<string>`(select code from seller where seller.id = ${sellerId})`

/**
 * Joins the seller `se` of `sellerId` and the user account `ua` of `userAccountId` (SQL expressions over the
 * statement's row): their codes are `se.code` and `ua.code`.
 */
export const sellerAndUserAccountJoins = (by: { sellerId: SQL; userAccountId: SQL }): SQL =>
  sql`join seller se on se.id = ${by.sellerId} join user_account ua on ua.id = ${by.userAccountId}`

/** Of `codes`, those naming a seller, in no particular order. */
export async function knownSellerCodes(db: Db, codes: readonly string[]): Promise<string[]> {
  const found = await rows<{ code: string }>(
    db,
    sql`select code from seller where code = any(${textArray([...codes])})`,
  )
  return found.map((row) => row.code)
}

/** True (in SQL) when the seller `sellerId` (an SQL expression over the statement's row) has one of `codes`. */
export const sellerAmong = (sellerId: SQL, codes: readonly string[]): SQL =>
  sql`exists (select 1 from seller among_seller where among_seller.id = ${sellerId}
    and among_seller.code = any(${textArray([...codes])}))`

/**
 * A left join of the seller of `sellerId` (an SQL expression over the statement's rows), once per row rather than
 * a lookup per use, and its code (null: no seller).
 */
export const sellerLeftJoin = (sellerId: SQL): { join: SQL; code: SQL } => ({
  join: sql`left join seller joined_seller on joined_seller.id = ${sellerId}`,
  code: sql`joined_seller.code`,
})
