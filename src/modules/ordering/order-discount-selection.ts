/**
 * The discount plans an order applies (catalog rule 3): every code listed at order, offer and product level, then
 * the offers' automatic-application plans not already selected for them. Rule 4: a plan is ACTIVE or IN_USE; an OFFER
 * plan is linked to the offers it discounts; a product plan is linked to its product.
 */
import type { ErrorDetail } from '../../kernel/errors.ts'
import type { DiscountPlanRow } from '../discounts/index.ts'
import type { CatalogLookups } from './cached-catalog.ts'
import type { DiscountLevel } from '../rating/index.ts'
import { offerField, productField, type OfferLine } from './order-lines.ts'
import { USABLE_PLAN_STATUSES, type OrderInput } from './order.model.ts'
import { requiredArticleOf, type ItemArticle } from './rating-glue.ts'

/** A plan the order applies, at its level, with the request positions of the offer and product it discounts. */
export interface SelectedPlan {
  readonly plan: DiscountPlanRow
  readonly level: DiscountLevel
  readonly offerPosition: number | null
  readonly productPosition: number | null
  readonly automatic: boolean
  /** Order of selection (order level, then each offer, then its products; automatic plans last). */
  readonly position: number
}

interface Listed {
  readonly code: string
  readonly field: string
  readonly level: DiscountLevel
  readonly offerPosition: number | null
  readonly productPosition: number | null
}

/** The plan codes of the request at each level, each once per list, in request order. */
function listedPlans(input: OrderInput, problems: ErrorDetail[]): Listed[] {
  const listed: Listed[] = []
  const list = (
    codes: readonly string[] | undefined,
    field: string,
    level: DiscountLevel,
    offerPosition: number | null,
    productPosition: number | null,
  ) => {
    const seen = new Set<string>()
    for (const [k, code] of (codes ?? []).entries()) {
      if (seen.has(code)) {
        problems.push({ field: `${field}[${k}]`, message: `discount plan ${code} is listed twice` })
        continue
      }
      seen.add(code)
      listed.push({ code, field: `${field}[${k}]`, level, offerPosition, productPosition })
    }
  }
  list(input.discountPlanCodes, 'discountPlanCodes', 'ORDER', null, null)
  for (const [i, orderOffer] of input.orderOffers.entries()) {
    list(orderOffer.discountPlanCodes, `${offerField(i)}.discountPlanCodes`, 'OFFER', i, null)
    for (const [j, orderProduct] of (orderOffer.orderProducts ?? []).entries()) {
      list(orderProduct.discountPlanCodes, `${productField(i, j)}.discountPlanCodes`, 'PRODUCT', i, j)
    }
  }
  return listed
}

/** Why a listed plan cannot apply where it is listed (rule 4), or undefined. */
function listedPlanProblem(plan: DiscountPlanRow, entry: Listed, lines: readonly OfferLine[]): string | undefined {
  if (!USABLE_PLAN_STATUSES.includes(plan.status)) {
    return `discount plan ${plan.code} is ${plan.status}: an order needs an ACTIVE or IN_USE plan`
  }
  const lineAt = (position: number | null) => lines.find((l) => l.position === position)
  if (entry.level === 'PRODUCT') {
    const product = lineAt(entry.offerPosition)?.products.find((p) => p.position === entry.productPosition)
    if (product && !product.product.discountPlanIds.includes(plan.id)) {
      return `discount plan ${plan.code} is not linked to product ${product.product.code}`
    }
  }
  if (plan.discountPlanType === 'OFFER' && entry.level !== 'PRODUCT') {
    const scoped = entry.level === 'OFFER' ? [lineAt(entry.offerPosition)] : lines
    const unlinked = scoped.find((l) => l && !l.offer.discountPlanIds.includes(plan.id))
    if (unlinked) return `discount plan ${plan.code} is an OFFER plan not linked to offer ${unlinked.offer.code}`
  }
  return undefined
}

export async function selectDiscounts(
  catalog: CatalogLookups,
  input: OrderInput,
  lines: readonly OfferLine[],
  problems: ErrorDetail[],
): Promise<SelectedPlan[]> {
  const listed = listedPlans(input, problems)
  const plans = await catalog.discountPlansOf({
    codes: listed.map((l) => l.code),
    ids: lines.flatMap((l) => l.offer.discountPlanIds),
  })
  const byCode = new Map(plans.map((p) => [p.code, p]))
  const byId = new Map(plans.map((p) => [p.id, p]))
  const selected: SelectedPlan[] = []
  for (const entry of listed) {
    const plan = byCode.get(entry.code)
    if (!plan) {
      problems.push({ field: entry.field, message: `no discount plan with code '${entry.code}'` })
      continue
    }
    const problem = listedPlanProblem(plan, entry, lines)
    if (problem) {
      problems.push({ field: entry.field, message: problem })
      continue
    }
    const { level, offerPosition, productPosition } = entry
    selected.push({ plan, level, offerPosition, productPosition, automatic: false, position: selected.length })
  }
  for (const line of lines) {
    for (const planId of line.offer.discountPlanIds) {
      const plan = byId.get(planId)
      if (!plan?.automaticApplication || !USABLE_PLAN_STATUSES.includes(plan.status)) continue
      const already = selected.some(
        (s) =>
          s.plan.id === plan.id && (s.level === 'ORDER' || (s.level === 'OFFER' && s.offerPosition === line.position)),
      )
      if (already) continue
      selected.push({
        plan,
        level: 'OFFER',
        offerPosition: line.position,
        productPosition: null,
        automatic: true,
        position: selected.length,
      })
    }
  }
  return selected
}

/** A selected plan whose every item names its accounting article. */
export interface ArticledPlan extends SelectedPlan {
  readonly items: readonly { readonly item: DiscountPlanRow['items'][number]; readonly article: ItemArticle }[]
}

/**
 * The selected plans with the accounting article of each item: a discount is booked on its item's article, so an
 * item without one fails the order as the catalog document's VALIDATE_FAILED.
 */
export function withArticles(selected: readonly SelectedPlan[]): ArticledPlan[] {
  return selected.map((plan) => ({
    ...plan,
    items: plan.plan.items.map((item) => ({ item, article: requiredArticleOf(item) })),
  }))
}
