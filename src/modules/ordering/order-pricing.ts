/**
 * The prices and taxes of a checked order: the published price of every charge on its subscription day, in the
 * billing account's currency (`chargePrices`), and the tax of each tax class met for the order's seller and billing
 * countries (`orderTaxes`); then the resolved offers and plans that placement persists and rating rates.
 */
import type { ErrorDetail } from '../../kernel/errors.ts'
import { entryOf } from '../../kernel/invariant.ts'
import type { BillingAccountRow, SellerRow } from '../accounts/index.ts'
import type { PublishedPricing } from '../pricing/index.ts'
import type { CatalogLookups } from './cached-catalog.ts'
import { firstServicePeriod, selectTax, type TaxRate } from '../rating/index.ts'
import type { ArticledPlan } from './order-discount-selection.ts'
import type { ChargedOffer, ChargeLine } from './order-lines.ts'
import type { ResolvedCharge, ResolvedOffer, ResolvedPlan, ResolvedProduct } from './order.model.ts'
import { currencyMismatch, priceNotFound, recurringCalendar, taxNotFound } from './rating-glue.ts'

/** The parties an order bills: the seller and billing account choose the tax, the account's currency prices. */
export interface OrderParties {
  readonly seller: SellerRow
  readonly billingAccount: BillingAccountRow
}

const chargeLinesOf = (offers: readonly ChargedOffer[]): ChargeLine[] =>
  offers.flatMap((o) => [...o.products.flatMap((p) => p.charges), ...o.services.flatMap((s) => s.charges)])

const priceKey = (line: Pick<ChargeLine, 'charge' | 'day'>) => `${line.charge.id}@${line.day}`

/**
 * The published price of each charge line on its day. A charge without one fails the order (PRICE_NOT_FOUND), except
 * a usage charge, which is priced when usage comes; a price in another currency than the billing account's is a
 * problem naming billingAccountCode.
 */
export async function chargePrices(
  catalog: CatalogLookups,
  offers: readonly ChargedOffer[],
  billingAccount: BillingAccountRow,
  problems: ErrorDetail[],
): Promise<ReadonlyMap<string, PublishedPricing>> {
  const lines = chargeLinesOf(offers)
  const prices = await catalog.pricingOn(lines.map((l) => ({ chargeId: l.charge.id, day: l.day })))
  for (const line of lines) {
    const pricing = prices.get(priceKey(line))
    if (!pricing && line.charge.type !== 'USAGE') throw priceNotFound(line.charge.code, line.day)
    const mismatch =
      pricing &&
      currencyMismatch(line.charge.code, pricing.currency, {
        billingAccountCode: billingAccount.code,
        currencyCode: billingAccount.currencyCode,
      })
    if (mismatch) problems.push({ field: 'billingAccountCode', message: mismatch })
  }
  return prices
}

/** The tax of a tax class for the order's parties, `what` naming the charge or article in TAX_NOT_FOUND. */
export type TaxOf = (taxClassId: number, what: string) => Promise<TaxRate>

/**
 * The taxes of the order, read once for the tax classes of its charges and plan items and kept by class: the first
 * class without a mapping for the seller and billing countries fails the order (TAX_NOT_FOUND).
 */
export async function orderTaxes(
  catalog: CatalogLookups,
  offers: readonly ChargedOffer[],
  plans: readonly ArticledPlan[],
  parties: OrderParties,
): Promise<TaxOf> {
  const { seller, billingAccount } = parties
  const mappings = await catalog.taxMappingsOf([
    ...chargeLinesOf(offers).map((l) => l.charge.taxClassId),
    ...plans.flatMap((p) => p.items.map((i) => i.article.taxClassId)),
  ])
  const taxes = new Map<number, TaxRate>()
  return async (taxClassId, what) => {
    const known = taxes.get(taxClassId)
    if (known) return known
    const tax = selectTax(mappings, taxClassId, seller.countryId, billingAccount.countryId)
    if (!tax) {
      const code = (await catalog.taxClassCodes([taxClassId])).get(taxClassId) ?? String(taxClassId)
      throw taxNotFound(code, what, { sellerCode: seller.code, billingAccountCode: billingAccount.code })
    }
    taxes.set(taxClassId, tax)
    return tax
  }
}

/** Each charge line with its price, tax and (recurring charges) first service period. */
async function resolvedCharges(
  lines: readonly ChargeLine[],
  prices: ReadonlyMap<string, PublishedPricing>,
  taxOf: TaxOf,
): Promise<ResolvedCharge[]> {
  const resolved: ResolvedCharge[] = []
  for (const line of lines) {
    const { charge } = line
    resolved.push({
      charge,
      pricing: prices.get(priceKey(line)) ?? null,
      quantity: line.quantity,
      attributes: line.attributes,
      unitPriceOverride: line.override,
      tax: await taxOf(charge.taxClassId, `charge ${charge.code}`),
      period:
        charge.type === 'RECURRING'
          ? firstServicePeriod(recurringCalendar(charge), line.day, charge.subscriptionProrata)
          : null,
    })
  }
  return resolved
}

/** The offers as placement persists them, in request order; taxes are read in the same order (products, services). */
export async function resolvedOffers(
  offers: readonly ChargedOffer[],
  prices: ReadonlyMap<string, PublishedPricing>,
  taxOf: TaxOf,
): Promise<ResolvedOffer[]> {
  const resolved: ResolvedOffer[] = []
  for (const { line, products, services } of offers) {
    const resolvedProducts: ResolvedProduct[] = []
    for (const p of products) {
      resolvedProducts.push({
        position: p.line.position,
        product: { id: p.line.product.id, code: p.line.product.code },
        version: { id: p.line.version.id, version: p.line.version.version },
        quantity: p.line.quantity,
        attributes: p.attributes,
        chargeOverrides: [...p.overrides].map(([chargeCode, unitPrice]) => ({ chargeCode, unitPrice })),
        charges: await resolvedCharges(p.charges, prices, taxOf),
      })
    }
    const resolvedServices = []
    for (const s of services) {
      resolvedServices.push({
        service: { id: s.service.id, code: s.service.code, description: s.service.description },
        charges: await resolvedCharges(s.charges, prices, taxOf),
      })
    }
    resolved.push({
      position: line.position,
      subscriptionCode: line.input.subscriptionCode ?? null,
      subscriptionDate: line.day,
      orderLineType: line.input.orderLineType ?? 'CREATE',
      offer: { id: line.offer.id, code: line.offer.code },
      products: resolvedProducts,
      services: resolvedServices,
    })
  }
  return resolved
}

/** The selected plans pointing at the resolved offer and product they discount, each item with its article's tax. */
export async function resolvedPlans(
  plans: readonly ArticledPlan[],
  offers: readonly ResolvedOffer[],
  taxOf: TaxOf,
): Promise<ResolvedPlan[]> {
  const offerAt = new Map(offers.map((o) => [o.position, o]))
  const resolved: ResolvedPlan[] = []
  for (const selected of plans) {
    const items = []
    for (const { item, article } of selected.items) {
      items.push({ item, article, tax: await taxOf(article.taxClassId, `accounting article ${article.code}`) })
    }
    const common = { plan: selected.plan, automatic: selected.automatic, position: selected.position, items }
    if (selected.level === 'ORDER') {
      resolved.push({ ...common, level: 'ORDER', offer: null, product: null })
      continue
    }
    const offer = entryOf(offerAt, selected.offerPosition ?? -1, 'resolved offer at position')
    if (selected.level === 'OFFER') {
      resolved.push({ ...common, level: 'OFFER', offer, product: null })
      continue
    }
    const productAt = new Map(offer.products.map((p) => [p.position, p]))
    const product = entryOf(productAt, selected.productPosition ?? -1, 'resolved product at position')
    resolved.push({ ...common, level: 'PRODUCT', offer, product })
  }
  return resolved
}
