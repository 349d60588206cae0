import { sql } from 'drizzle-orm'
import { rows, type Db } from '../../kernel/db/database.ts'
import { textArray } from '../../kernel/model/json.ts'
import { AppError } from '../../kernel/errors.ts'
import { present } from '../../kernel/invariant.ts'
import { money } from '../../kernel/money.ts'
import {
  selectTax,
  type ChargeRatingInput,
  type DiscountInstance,
  type DiscountItem,
  type DiscountLevel,
  type DiscountState,
  giveBackDiscountState,
  type PricingSnapshot,
  type ServicePeriod,
  type TaxMapping,
  type TaxRate,
} from '../rating/index.ts'
import type { OperationOwner } from './wallet-operation.model.ts'
import { taxClassCodes, taxMappingsOf, type BillingParties, type CalendarShape } from '../accounts/index.ts'
import { chargesById, type ChargeRow } from '../catalog/index.ts'
import { discountPlansOf, type DiscountItemRow, type DiscountPlanRow } from '../discounts/index.ts'
import { pricingOn } from '../pricing/index.ts'
import type { CatalogLookups } from './cached-catalog.ts'

/**
 * The glue between stored subscriptions and the pure rating engine, shared by order placement, recurring rating and
 * prepaid usage reservations: the parties whose countries and currency rating needs, the catalog reads (charges,
 * the price on a day, tax mappings, discount plans), the currency check, the `rateCharge` input, the mapping of
 * stored discount plan instances to discount instances, and the owner columns of wallet operations.
 */

/** The seller and billing account a rating bills (accounts' lookup). */
export type { BillingParties }

/** The billing calendar of a RECURRING charge, which the database requires of every recurring charge. */
export function recurringCalendar(charge: Pick<ChargeRow, 'code' | 'calendar'>): CalendarShape {
  return present(charge.calendar, `calendar of recurring charge ${charge.code}`)
}

/** A charge must be priced in the currency its billing account is billed in. */
export function currencyMismatch(
  chargeCode: string,
  pricedIn: string,
  parties: Pick<BillingParties, 'billingAccountCode' | 'currencyCode'>,
): string | undefined {
  return pricedIn === parties.currencyCode
    ? undefined
    : `charge ${chargeCode} is priced in ${pricedIn}, billing account ${parties.billingAccountCode} is billed in ${parties.currencyCode}`
}

export const priceNotFound = (chargeCode: string, day: string) =>
  new AppError('PRICE_NOT_FOUND', `Charge ${chargeCode} has no published price on ${day}`)

export const taxNotFound = (
  taxClassCode: string,
  what: string,
  parties: Pick<BillingParties, 'sellerCode' | 'billingAccountCode'>,
) =>
  new AppError(
    'TAX_NOT_FOUND',
    `No tax mapping gives a tax for tax class ${taxClassCode} of ${what} (seller ${parties.sellerCode}, billing account ${parties.billingAccountCode})`,
  )

/** The accounting article a discount item is booked on, with the tax class that gives the discount its tax. */
export interface ItemArticle {
  readonly id: number
  readonly code: string
  readonly taxClassId: number
}

/** The accounting article of a discount item, or null when it names none (an order using it is refused). */
export function articleOf(item: DiscountItemRow): ItemArticle | null {
  const { articleId, articleCode, articleTaxClassId } = item
  return articleId === null || articleCode === null || articleTaxClassId === null
    ? null
    : { id: articleId, code: articleCode, taxClassId: articleTaxClassId }
}

/** A discount plan item as the rating engine applies it: booked on its article, taxed with the article's tax. */
export function discountItem(item: DiscountItemRow, article: ItemArticle, tax: TaxRate): DiscountItem {
  return {
    id: item.id,
    code: item.code,
    description: item.description,
    type: item.type,
    value: money(item.value),
    articleId: article.id,
    articleCode: article.code,
    tax,
  }
}

/**
 * The article of an item, which a discount is booked on: an item without one (placement refuses them, but a plan can
 * lose an article later) fails the rating as it fails an order, VALIDATE_FAILED.
 */
export function requiredArticleOf(item: DiscountItemRow): ItemArticle {
  const article = articleOf(item)
  if (!article) throw new AppError('VALIDATE_FAILED', `discount plan item ${item.code} has no accounting article`)
  return article
}

/** A discount plan instance as stored for a placed order. */
export interface PlanInstanceRow {
  readonly id: number
  readonly orderId: number
  readonly subscriptionId: number | null
  readonly productInstanceId: number | null
  readonly discountPlanId: number
  readonly level: DiscountLevel
  readonly state: DiscountState
}

/** The scope keys of a stored charge instance at each discount level (see `storedDiscountInstances`). */
export const storedScopes = (subscriptionId: number, productInstanceId: number | null) => ({
  ORDER: 'order',
  OFFER: `sub:${subscriptionId}`,
  PRODUCT: productInstanceId === null ? null : `pi:${productInstanceId}`,
})

export const planInstanceKey = (row: Pick<PlanInstanceRow, 'id'>) => `dpi:${row.id}`

/** The ACTIVE discount plan instances of orders, with their state, in order then position order. */
export async function storedPlanInstances(db: Db, orderIds: readonly number[]): Promise<PlanInstanceRow[]> {
  if (orderIds.length === 0) return []
  const found = await rows<Record<string, unknown>>(
    db,
    sql`select id, order_id, subscription_id, product_instance_id, discount_plan_id, level, state::text as state
      from discount_plan_instance where status = 'ACTIVE' and order_id = any(${textArray(orderIds.map(String))}::bigint[])
      order by order_id, position, id`,
  )
  const id = (value: unknown) => (value === null ? null : Number(value))
  return found.map((r) => {
    const state = JSON.parse(r.state as string) as Partial<DiscountState>
    return {
      id: Number(r.id),
      orderId: Number(r.order_id),
      subscriptionId: id(r.subscription_id),
      productInstanceId: id(r.product_instance_id),
      discountPlanId: Number(r.discount_plan_id),
      level: r.level as DiscountLevel,
      state: { applied: state.applied ?? {}, fixedUsed: state.fixedUsed ?? {} },
    }
  })
}

/**
 * Saves discount plan instance states after a rating. The caller holds the order's lock (`for no key update` on
 * customer_order), which every rating that changes an order's plan states takes first.
 */
export async function savePlanStates(
  db: Db,
  states: readonly { id: number; state: DiscountState }[],
  actor: string,
): Promise<void> {
  if (states.length === 0) return
  await db.execute(sql`update discount_plan_instance dpi set state = v.state::jsonb, updated = now(), updater = ${actor}
    from (select unnest(${textArray(states.map((s) => String(s.id)))}::bigint[]) as id,
      unnest(${textArray(states.map((s) => JSON.stringify(s.state)))}) as state) v
    where dpi.id = v.id`)
}

/**
 * Gives back what held ratings took from discount plan instances (`taken`: instance id → what one took, see
 * `discountStateTaken`), any number of them: the orders of the instances are locked first, in id order, as every
 * rating changing an order's plan states does, and the states are re-read inside the lock before the subtraction.
 */
export async function giveBackPlanStates(
  db: Db,
  taken: readonly Readonly<Record<string, DiscountState>>[],
  actor: string,
): Promise<void> {
  const ids = [...new Set(taken.flatMap((t) => Object.keys(t)))]
  if (ids.length === 0) return
  // An instance's order never changes: read without a lock, then lock the orders.
  await db.execute(sql`select id from customer_order where id in (select order_id from discount_plan_instance
      where id = any(${textArray(ids)}::bigint[])) order by id for no key update`)
  const current = await rows<{ id: unknown; state: string }>(
    db,
    sql`select id, state::text as state from discount_plan_instance where id = any(${textArray(ids)}::bigint[])`,
  )
  const states = new Map(
    current.map((r) => {
      const state = JSON.parse(r.state) as Partial<DiscountState>
      return [String(r.id), { applied: state.applied ?? {}, fixedUsed: state.fixedUsed ?? {} }]
    }),
  )
  for (const held of taken) {
    for (const [id, state] of Object.entries(held)) {
      const before = states.get(id)
      if (before) states.set(id, giveBackDiscountState(before, state))
    }
  }
  await savePlanStates(
    db,
    [...states].map(([id, state]) => ({ id: Number(id), state })),
    actor,
  )
}

/**
 * Catalog reads for ratings, batched and kept for a run: charges, published prices by day (the version valid on the
 * day, see `pricingOn`), tax mappings of the classes met, discount plans.
 */
export class RatingCatalog {
  readonly charges = new Map<number, ChargeRow>()
  readonly pricing = new Map<string, PricingSnapshot | null>()
  readonly mappings = new Map<number, TaxMapping[]>()
  readonly plans = new Map<number, DiscountPlanRow>()
  private readonly classCodes = new Map<number, string>()

  /** Loads what is wanted and not loaded yet; through `lookups` (the catalog cache of a request) when given. */
  async load(
    db: Db,
    wanted: {
      chargeIds?: readonly number[]
      prices?: readonly { chargeId: number; day: string }[]
      planIds?: readonly number[]
    },
    lookups?: CatalogLookups,
  ): Promise<void> {
    const reads: Pick<
      CatalogLookups,
      'chargesById' | 'pricingOn' | 'discountPlansOf' | 'taxMappingsOf' | 'taxClassCodes'
    > = lookups ?? {
      chargesById: (ids) => chargesById(db, ids),
      pricingOn: (prices) => pricingOn(db, prices),
      discountPlansOf: (select) => discountPlansOf(db, select),
      taxMappingsOf: (ids) => taxMappingsOf(db, ids),
      taxClassCodes: (ids) => taxClassCodes(db, ids),
    }
    const newCharges = [...new Set(wanted.chargeIds ?? [])].filter((id) => !this.charges.has(id))
    for (const [id, charge] of await reads.chargesById(newCharges)) this.charges.set(id, charge)
    const newPrices = (wanted.prices ?? []).filter((p) => !this.pricing.has(`${p.chargeId}@${p.day}`))
    const found = await reads.pricingOn(newPrices)
    for (const p of newPrices) this.pricing.set(`${p.chargeId}@${p.day}`, found.get(`${p.chargeId}@${p.day}`) ?? null)
    const newPlans = [...new Set(wanted.planIds ?? [])].filter((id) => !this.plans.has(id))
    for (const plan of await reads.discountPlansOf({ ids: newPlans })) this.plans.set(plan.id, plan)
    const classes = [
      ...[...this.charges.values()].map((c) => c.taxClassId),
      ...[...this.plans.values()].flatMap((p) => p.items.flatMap((i) => articleOf(i)?.taxClassId ?? [])),
    ].filter((id) => !this.mappings.has(id))
    const mappings = await reads.taxMappingsOf(classes)
    for (const id of new Set(classes)) {
      this.mappings.set(
        id,
        mappings.filter((m) => m.taxClassId === id),
      )
    }
    for (const [id, code] of await reads.taxClassCodes(classes)) this.classCodes.set(id, code)
  }

  charge(id: number): ChargeRow {
    const charge = this.charges.get(id)
    if (!charge) throw new Error(`rating: charge ${id} was not loaded`)
    return charge
  }

  /** The loaded price of a charge on a day, in the parties' currency: PRICE_NOT_FOUND, VALIDATION_FAILED. */
  priceOn(charge: Pick<ChargeRow, 'id' | 'code'>, day: string, parties: BillingParties): PricingSnapshot {
    const pricing = this.pricing.get(`${charge.id}@${day}`)
    if (!pricing) throw priceNotFound(charge.code, day)
    const mismatch = currencyMismatch(charge.code, pricing.currency, parties)
    if (mismatch) throw new AppError('VALIDATION_FAILED', mismatch)
    return pricing
  }

  /** The tax of a loaded tax class for the parties' countries (TAX_NOT_FOUND naming the class and `what`). */
  tax(taxClassId: number, parties: BillingParties, what: string): TaxRate {
    const tax = selectTax(
      this.mappings.get(taxClassId) ?? [],
      taxClassId,
      parties.sellerCountryId,
      parties.billingCountryId,
    )
    if (!tax) throw taxNotFound(this.classCodes.get(taxClassId) ?? String(taxClassId), what, parties)
    return tax
  }

  /**
   * The stored discount plan instances of an order as discount instances: scoped by the order, a subscription id or
   * a product instance id (`storedScopes`), keyed `dpi:<id>` (`planInstanceKey`).
   */
  discountInstances(rows: readonly PlanInstanceRow[], parties: BillingParties): DiscountInstance[] {
    return rows.map((row) => {
      const plan = this.plans.get(row.discountPlanId)
      if (!plan) throw new Error(`rating: discount plan ${row.discountPlanId} was not loaded`)
      return {
        key: planInstanceKey(row),
        planId: plan.id,
        planCode: plan.code,
        planDescription: plan.description,
        sequence: plan.sequence,
        level: row.level,
        scope:
          row.level === 'ORDER'
            ? 'order'
            : row.level === 'OFFER'
              ? `sub:${row.subscriptionId ?? ''}`
              : `pi:${row.productInstanceId ?? ''}`,
        applicationLimit: plan.applicationLimit,
        items: plan.items.map((item) => {
          const article = requiredArticleOf(item)
          return discountItem(
            item,
            article,
            this.tax(article.taxClassId, parties, `accounting article ${article.code}`),
          )
        }),
      }
    })
  }
}

/** A stored charge instance as rating reads it. */
export interface StoredCharge {
  readonly chargeInstanceId: number
  readonly quantity: string
  readonly unitPriceOverride: string | null
  readonly attributes: Readonly<Record<string, string>> | null
  readonly subscriptionCode: string
  readonly subscriptionDate: string
  readonly offerCode: string
  readonly productCode: string | null
}

/** The `rateCharge` input of a stored charge instance: its quantity unless `quantity` is given (usage). */
export function storedChargeInput(
  charge: Pick<ChargeRow, 'code' | 'type'>,
  stored: StoredCharge,
  rating: {
    pricing: PricingSnapshot
    tax: TaxRate
    parties: BillingParties
    pricesIncludeTax: boolean
    quantity?: ChargeRatingInput['quantity']
    period?: ServicePeriod
  },
): ChargeRatingInput {
  return {
    charge: { code: charge.code, type: charge.type },
    pricing: rating.pricing,
    quantity: rating.quantity ?? money(stored.quantity),
    attributes: stored.attributes ?? {},
    unitPriceOverride: stored.unitPriceOverride === null ? null : money(stored.unitPriceOverride),
    tax: rating.tax,
    minorUnits: rating.parties.minorUnits,
    pricesIncludeTax: rating.pricesIncludeTax,
    ...(rating.period ? { period: rating.period } : {}),
    context: {
      subscription: { code: stored.subscriptionCode, date: stored.subscriptionDate },
      offer: { code: stored.offerCode },
      ...(stored.productCode ? { product: { code: stored.productCode } } : {}),
    },
  }
}

/** The owner columns of the wallet operations of one stored charge instance. */
export function storedOperationOwner(
  parties: BillingParties,
  owner: { walletId: number; chargeInstanceId: number; subscriptionId: number; orderId: number | null },
  actor: string,
): OperationOwner {
  return {
    ...owner,
    billingAccountId: parties.billingAccountId,
    sellerId: parties.sellerId,
    currencyId: parties.currencyId,
    actor,
  }
}
