import type { Db } from '../../kernel/db/database.ts'
import type { ErrorDetail } from '../../kernel/errors.ts'
import { registry } from '../../kernel/model/index.ts'
import type { SellerCodes } from '../../kernel/model/row-security.ts'
import { withinSellers } from '../../kernel/resources/resource.repository.ts'
import type { OrderInput } from './order.model.ts'
import {
  billingAccountByCode,
  sellerByCode,
  userAccountByCode,
  type BillingAccountRow,
  type SellerRow,
  type UserAccountRow,
} from '../accounts/index.ts'
import { inTurn } from '../../kernel/db/in-turn.ts'

type Parties = [SellerRow | undefined, BillingAccountRow | undefined, UserAccountRow | undefined]

/**
 * The seller, billing account and user account an order names, as the caller may see them (DECISIONS "General":
 * row-level security): a record of a seller outside the caller's restriction reads as absent, so the order fails
 * exactly as with an unknown code.
 */
async function orderParties(db: Db, input: OrderInput, sellerCodes: SellerCodes): Promise<Parties> {
  const [seller, billingAccount, userAccount] = await inTurn(
    () => sellerByCode(db, input.sellerCode),
    () => billingAccountByCode(db, input.billingAccountCode),
    () => userAccountByCode(db, input.userAccountCode),
  )
  const visible = async <T extends { id: number }>(entity: string, row: T | undefined) =>
    row && (await withinSellers(db, registry.get(entity), row.id, sellerCodes)) ? row : undefined
  return inTurn(
    () => visible('Seller', seller),
    () => visible('BillingAccount', billingAccount),
    () => visible('UserAccount', userAccount),
  )
}

/** The seller and accounts of an order, all found and visible to the caller. */
export interface FoundParties {
  readonly seller: SellerRow
  readonly billingAccount: BillingAccountRow
  readonly userAccount: UserAccountRow
}

/**
 * The parties step of order resolution: each code names a visible record, the user account belongs to the billing
 * account, and both accounts belong to a customer of the seller. `seller` is kept alone for the offer checks even
 * when an account is missing; `parties` only when all three were found.
 */
export async function partiesOf(
  db: Db,
  input: OrderInput,
  sellerCodes: SellerCodes,
  problems: ErrorDetail[],
): Promise<{ seller: SellerRow | undefined; parties: FoundParties | undefined }> {
  const [seller, billingAccount, userAccount] = await orderParties(db, input, sellerCodes)
  if (!seller) problems.push({ field: 'sellerCode', message: `no seller with code '${input.sellerCode}'` })
  if (!billingAccount) {
    problems.push({
      field: 'billingAccountCode',
      message: `no billing account with code '${input.billingAccountCode}'`,
    })
  }
  if (!userAccount) {
    problems.push({ field: 'userAccountCode', message: `no user account with code '${input.userAccountCode}'` })
  } else if (billingAccount && userAccount.billingAccountId !== billingAccount.id) {
    problems.push({
      field: 'userAccountCode',
      message: `user account ${userAccount.code} belongs to billing account ${userAccount.billingAccountCode}, not ${billingAccount.code}`,
    })
  }
  if (seller) problems.push(...(await accountsOfOtherSellers(db, seller, billingAccount, userAccount)))
  return {
    seller,
    parties: seller && billingAccount && userAccount ? { seller, billingAccount, userAccount } : undefined,
  }
}

/**
 * The billing and user accounts of an order must belong to a customer of the order's seller (their registry seller
 * path ends at it): charges are booked on the user account's wallet under the order's seller.
 */
export async function accountsOfOtherSellers(
  db: Db,
  seller: SellerRow,
  billingAccount: BillingAccountRow | undefined,
  userAccount: UserAccountRow | undefined,
): Promise<ErrorDetail[]> {
  const problems: ErrorDetail[] = []
  const ofSeller = [seller.code]
  if (billingAccount && !(await withinSellers(db, registry.get('BillingAccount'), billingAccount.id, ofSeller))) {
    problems.push({
      field: 'billingAccountCode',
      message: `billing account ${billingAccount.code} does not belong to a customer of seller ${seller.code}`,
    })
  }
  if (userAccount && !(await withinSellers(db, registry.get('UserAccount'), userAccount.id, ofSeller))) {
    problems.push({
      field: 'userAccountCode',
      message: `user account ${userAccount.code} does not belong to a customer of seller ${seller.code}`,
    })
  }
  return problems
}
