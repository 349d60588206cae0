import type { DiscountLine, RatedCharge, ServicePeriod, TaxRate } from '../rating/index.ts'
import type { WalletOperationValues } from './wallet-operation.repository.ts'

/** Where the operations of one charge instance belong. */
export interface OperationOwner {
  readonly walletId: number
  readonly chargeInstanceId: number
  readonly subscriptionId: number
  readonly billingAccountId: number
  readonly sellerId: number
  readonly orderId: number | null
  readonly currencyId: number
  readonly actor: string
}

/** A rated charge as its wallet operation (OPEN): the charge's article, the rated amounts and tax, the period. */
export function chargeOperation(
  owner: OperationOwner,
  charge: { code: string; description: string | null; accountingArticleId: number },
  chargeType: string,
  rated: RatedCharge,
  tax: TaxRate,
  pricingVersionId: number | null,
  operationDate: string,
  period: ServicePeriod | null,
): WalletOperationValues {
  return {
    code: charge.code,
    description: charge.description ?? charge.code,
    status: 'OPEN',
    chargeType,
    operationDate,
    startDate: period?.start ?? null,
    endDate: period?.end ?? null,
    quantity: rated.quantity.toFixed(),
    unitAmountWithoutTax: rated.unitAmountWithoutTax.toFixed(),
    unitAmountWithTax: rated.unitAmountWithTax.toFixed(),
    amountWithoutTax: rated.amountWithoutTax.toFixed(),
    amountTax: rated.amountTax.toFixed(),
    amountWithTax: rated.amountWithTax.toFixed(),
    taxPercent: tax.percent.toFixed(),
    taxId: tax.id,
    accountingArticleId: charge.accountingArticleId,
    currencyId: owner.currencyId,
    walletId: owner.walletId,
    chargeInstanceId: owner.chargeInstanceId,
    subscriptionId: owner.subscriptionId,
    billingAccountId: owner.billingAccountId,
    sellerId: owner.sellerId,
    orderId: owner.orderId,
    pricingVersionId,
    explanation: rated.explanation,
    creator: owner.actor,
  }
}

/**
 * A discount as its own negative wallet operation (rule 5): it references the plan, uses the item's accounting
 * article and that article's tax, and points at the operation it discounts; that operation is unchanged.
 */
export function discountOperation(
  owner: OperationOwner,
  chargeType: string,
  discount: DiscountLine,
  discountPlanInstanceId: number | null,
  discountedWalletOperationId: number,
  operationDate: string,
  period: ServicePeriod | null,
): WalletOperationValues {
  return {
    code: discount.item.code,
    description: discount.item.description ?? discount.instance.planDescription ?? discount.instance.planCode,
    status: 'OPEN',
    chargeType,
    operationDate,
    startDate: period?.start ?? null,
    endDate: period?.end ?? null,
    quantity: '1',
    unitAmountWithoutTax: discount.amountWithoutTax.toFixed(),
    unitAmountWithTax: discount.amountWithTax.toFixed(),
    amountWithoutTax: discount.amountWithoutTax.toFixed(),
    amountTax: discount.amountTax.toFixed(),
    amountWithTax: discount.amountWithTax.toFixed(),
    taxPercent: discount.taxPercent.toFixed(),
    taxId: discount.item.tax.id,
    accountingArticleId: discount.item.articleId,
    currencyId: owner.currencyId,
    walletId: owner.walletId,
    chargeInstanceId: owner.chargeInstanceId,
    subscriptionId: owner.subscriptionId,
    billingAccountId: owner.billingAccountId,
    sellerId: owner.sellerId,
    orderId: owner.orderId,
    discountPlanId: discount.instance.planId,
    discountPlanItemId: discount.item.id,
    discountPlanInstanceId,
    discountedWalletOperationId,
    explanation: discount.explanation,
    creator: owner.actor,
  }
}
