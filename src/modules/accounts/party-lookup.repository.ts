/**
 * Sellers, billing accounts and user accounts by code, with what rating needs of them (countries, the billing
 * currency and its minor units). Plain reads: the caller applies row-level security.
 */
import { eq } from 'drizzle-orm'
import type { Db } from '../../kernel/db/database.ts'
import { billingAccounts, sellers, tradingCurrencies, userAccounts } from '../../kernel/db/schema/index.ts'

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

export async function sellerByCode(db: Db, code: string): Promise<SellerRow | undefined> {
  const found = await db
    .select({ id: sellers.id, code: sellers.code, countryId: sellers.countryId })
    .from(sellers)
    .where(eq(sellers.code, code))
  return found[0]
}

export async function billingAccountByCode(db: Db, code: string): Promise<BillingAccountRow | undefined> {
  const found = await db
    .select({
      id: billingAccounts.id,
      code: billingAccounts.code,
      countryId: billingAccounts.countryId,
      currencyId: billingAccounts.tradingCurrencyId,
      currencyCode: tradingCurrencies.code,
      minorUnits: tradingCurrencies.decimalPlaces,
    })
    .from(billingAccounts)
    .innerJoin(tradingCurrencies, eq(tradingCurrencies.id, billingAccounts.tradingCurrencyId))
    .where(eq(billingAccounts.code, code))
  return found[0]
}

export async function userAccountByCode(db: Db, code: string): Promise<UserAccountRow | undefined> {
  const found = await db
    .select({
      id: userAccounts.id,
      code: userAccounts.code,
      billingAccountId: userAccounts.billingAccountId,
      billingAccountCode: billingAccounts.code,
    })
    .from(userAccounts)
    .innerJoin(billingAccounts, eq(billingAccounts.id, userAccounts.billingAccountId))
    .where(eq(userAccounts.code, code))
  return found[0]
}
