/**
 * Wallets as prepaid's reservations and wallet routes use them: lookups, row locks, the create and change of a
 * PREPAID wallet, and the fragments of prepaid's one-statement writes (the wallet lock and the balance change its
 * ledger applies), each the same text every time so those statements stay prepared. Balances change only by
 * prepaid's ledger rows: `balance` and `reserved` stay the sums of a wallet's ledger rows.
 */
import { sql, type SQL } from 'drizzle-orm'
import { preparedRows, rows, one, type Db } from '../../kernel/db/database.ts'
import { textArray } from '../../kernel/model/json.ts'
import { userAccountJoins } from '../accounts/index.ts'

const num = (value: unknown) => Number(value)

export interface WalletRow {
  readonly id: number
  readonly code: string
  readonly walletType: string
  readonly userAccountId: number
  readonly currency: string
  /** The currency's decimals: what an amount credited, held or debited may carry at most. */
  readonly minorUnits: number
  readonly balance: string
  readonly reserved: string
  /** The available amount below which the wallet reports `wallet.balance_low` (none: never). */
  readonly lowBalanceLevel: string | null
}

const walletSelect = sql`select w.id, w.code, w.wallet_type, w.user_account_id, cur.code as currency,
    cur.decimal_places as minor_units, w.balance::text as balance, w.reserved::text as reserved,
    w.low_balance_level::text as low_balance_level
  from wallet w
  ${userAccountJoins(sql`w.user_account_id`)}`

function walletOf(r: Record<string, unknown>): WalletRow {
  return {
    id: num(r.id),
    code: r.code as string,
    walletType: r.wallet_type as string,
    userAccountId: num(r.user_account_id),
    currency: r.currency as string,
    minorUnits: num(r.minor_units),
    balance: r.balance as string,
    reserved: r.reserved as string,
    lowBalanceLevel: r.low_balance_level as string | null,
  }
}

/** The PREPAID wallet a usage reservation holds against (the user account's first by code), locked. */
export async function lockPrepaidWalletOf(db: Db, userAccountId: number): Promise<WalletRow | undefined> {
  const [found] = await preparedRows<Record<string, unknown>>(
    db,
    sql`${walletSelect} where w.user_account_id = ${userAccountId} and w.wallet_type = 'PREPAID'
      order by w.code limit 1 for update of w`,
  )
  return found && walletOf(found)
}

/** The id of the PREPAID wallet of the user account `userAccountId` (its first by code), as a scalar subquery. */
export const prepaidWalletIdOf = (userAccountId: SQL): SQL =>
  sql`(select w.id from wallet w where w.user_account_id = ${userAccountId} and w.wallet_type = 'PREPAID'
          order by w.code limit 1)`

/** Locks wallets in id order (after counter periods) and reads their balance and reserved amount. */
export async function lockWallets(db: Db, walletIds: readonly number[]): Promise<Map<number, WalletRow>> {
  if (walletIds.length === 0) return new Map()
  const found = await preparedRows<Record<string, unknown>>(
    db,
    sql`${walletSelect} where w.id = any(${textArray(walletIds.map(String))}::bigint[]) order by w.id for update of w`,
  )
  return new Map(found.map((r) => [num(r.id), walletOf(r)]))
}

export async function walletsOf(db: Db, userAccountId: number): Promise<WalletRow[]> {
  const found = await rows<Record<string, unknown>>(
    db,
    sql`${walletSelect} where w.user_account_id = ${userAccountId} order by w.code`,
  )
  return found.map(walletOf)
}

export async function walletByCode(db: Db, userAccountId: number, code: string): Promise<WalletRow | undefined> {
  const found = await one<Record<string, unknown>>(
    db,
    sql`${walletSelect} where w.user_account_id = ${userAccountId} and w.code = ${code}`,
  )
  return found && walletOf(found)
}

/** Creates a PREPAID wallet with balance 0; false when the user account already has a wallet of that code. */
export async function createPrepaidWallet(
  db: Db,
  wallet: { userAccountId: number; code: string; description: string | null; lowBalanceLevel: string | null },
  actor: string,
): Promise<boolean> {
  const created = await rows<{ id: unknown }>(
    db,
    sql`insert into wallet (code, description, user_account_id, wallet_type, principal, low_balance_level, creator)
      values (${wallet.code}, ${wallet.description}, ${wallet.userAccountId}, 'PREPAID', false,
        ${wallet.lowBalanceLevel}::numeric, ${actor})
      on conflict do nothing returning id`,
  )
  return created.length > 0
}

/** Changes a wallet's description and low-balance level (those given). */
export async function changeWallet(
  db: Db,
  id: number,
  change: { description?: string | null; lowBalanceLevel?: string | null },
  actor: string,
): Promise<void> {
  const sets = [
    ...(change.description === undefined ? [] : [sql`description = ${change.description}`]),
    ...(change.lowBalanceLevel === undefined ? [] : [sql`low_balance_level = ${change.lowBalanceLevel}::numeric`]),
  ]
  await db.execute(
    sql`update wallet set ${sql.join([...sets, sql`updated = now()`, sql`updater = ${actor}`], sql`, `)}
      where id = ${id}`,
  )
}

/**
 * The body of a WITH query locking the wallets `w` that `condition` selects (in id order when `ordered`) and reading
 * their `id` and `available` amount (balance − reserved) under the lock.
 */
export const lockedWalletsSelect = (condition: SQL, ordered: boolean): SQL =>
  ordered
    ? sql`select w.id, w.balance - w.reserved as available from wallet w
        where ${condition}
        order by w.id for update`
    : sql`select w.id, w.balance - w.reserved as available from wallet w
        where ${condition} for update`

/**
 * The body of a data-modifying WITH query changing wallets by the rows `(w, b, d)` of `changes` (wallet id, balance
 * change, reserved change; one row per wallet), returning each changed wallet's row after the change with
 * `available_before`, its available amount before it. The wallets must be locked by the caller.
 */
export const walletBalancesUpdate = (changes: SQL, actor: string): SQL =>
  sql`update wallet set balance = balance + s.b, reserved = reserved + s.d, updated = now(), updater = ${actor}
      from (${changes}) s
      where wallet.id = s.w
      returning wallet.id, wallet.code, wallet.wallet_type, wallet.user_account_id, wallet.balance, wallet.reserved,
        wallet.low_balance_level, (wallet.balance - s.b) - (wallet.reserved - s.d) as available_before`
