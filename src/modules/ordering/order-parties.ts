import type { Db } from '../../kernel/db/database.ts'
import type { ErrorDetail } from '../../kernel/errors.ts'
import type { SellerCodes } from '../../kernel/model/row-security.ts'
import type { OrderInput } from './order.model.ts'
import { present } from '../../kernel/invariant.ts'
import { orderPartiesByCode, type BillingAccountRow, type SellerRow, type UserAccountRow } from '../accounts/index.ts'
import { catalogGenerationSql } from '../catalog/index.ts'

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
): Promise<{ seller: SellerRow | undefined; parties: FoundParties | undefined; catalogGeneration: bigint }> {
  // One statement: the records as the caller may see them (DECISIONS "General": row-level security; a record of a
  // seller outside the caller's restriction reads as absent, so the order fails exactly as with an unknown code),
  // whether each account belongs to a customer of the seller, and the catalog generation (read before any catalog
  // row of the order, see the catalog cache).
  const found = await orderPartiesByCode(db, input, sellerCodes, catalogGenerationSql)
  const { seller } = found
  const account = <T extends { ofSeller: boolean }>(row: T | undefined) => {
    if (!row) return undefined
    const { ofSeller: _ofSeller, ...rest } = row
    return rest
  }
  const billingAccount = account(found.billingAccount)
  const userAccount = account(found.userAccount)
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
  // The billing and user accounts must belong to a customer of the order's seller (their registry seller path ends
  // at it): charges are booked on the user account's wallet under the order's seller.
  if (seller && found.billingAccount && !found.billingAccount.ofSeller) {
    problems.push({
      field: 'billingAccountCode',
      message: `billing account ${found.billingAccount.code} does not belong to a customer of seller ${seller.code}`,
    })
  }
  if (seller && found.userAccount && !found.userAccount.ofSeller) {
    problems.push({
      field: 'userAccountCode',
      message: `user account ${found.userAccount.code} does not belong to a customer of seller ${seller.code}`,
    })
  }
  return {
    seller,
    parties: seller && billingAccount && userAccount ? { seller, billingAccount, userAccount } : undefined,
    catalogGeneration: BigInt(present(found.alongside, 'catalog generation')),
  }
}
