/**
 * The seller and user account codes another module's rows show (prepaid's reservations): a lookup, a scalar
 * subquery and joins, each the same text every time so a statement using it stays one prepared statement.
 */
import { sql, type SQL } from 'drizzle-orm'
import { one, type Db } from '../../kernel/db/database.ts'

/** The code of a seller by id (undefined: no such seller). */
export async function sellerCodeById(db: Db, sellerId: number): Promise<string | undefined> {
  const found = await one<{ code: string }>(db, sql`select code from seller where id = ${sellerId}`)
  return found?.code
}

/** The code of the seller `sellerId` (an SQL expression over the statement's row), as a scalar subquery. */
export const sellerCodeOf = (sellerId: SQL): SQL => sql`(select code from seller where seller.id = ${sellerId})`

/**
 * Joins the seller `se` of `sellerId` and the user account `ua` of `userAccountId` (SQL expressions over the
 * statement's row): their codes are `se.code` and `ua.code`.
 */
export const sellerAndUserAccountJoins = (by: { sellerId: SQL; userAccountId: SQL }): SQL =>
  sql`join seller se on se.id = ${by.sellerId} join user_account ua on ua.id = ${by.userAccountId}`
