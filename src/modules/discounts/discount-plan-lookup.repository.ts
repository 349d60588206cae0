/**
 * Discount plans by code or id with their items, in item order, and each item's accounting article (the article's
 * tax class gives the discount line its tax). Read-only: the usage counters are written by discount-plan-usage.ts.
 */
import { asc, eq, inArray, or, sql } from 'drizzle-orm'
import type { Db } from '../../kernel/db/database.ts'
import { accountingArticles, discountPlanItems, discountPlans } from '../../kernel/db/schema/index.ts'

export interface DiscountItemRow {
  id: number
  code: string
  description: string | null
  type: 'PERCENTAGE' | 'FIXED'
  value: string
  articleId: number | null
  articleCode: string | null
  articleTaxClassId: number | null
}

export interface DiscountPlanRow {
  id: number
  code: string
  description: string | null
  discountPlanType: string | null
  status: string
  initialQuantity: number
  usedQuantity: number
  applicationLimit: number
  automaticApplication: boolean
  sequence: number
  /** In item order (sequence, then creation). */
  items: DiscountItemRow[]
}

/** Discount plans by code or id, with their items and the items' accounting articles. */
export async function discountPlansOf(
  db: Db,
  select: { codes?: readonly string[]; ids?: readonly number[] },
): Promise<DiscountPlanRow[]> {
  const codes = [...new Set(select.codes ?? [])]
  const ids = [...new Set(select.ids ?? [])]
  if (codes.length === 0 && ids.length === 0) return []
  const plans = await db
    .select({
      id: discountPlans.id,
      code: discountPlans.code,
      description: discountPlans.description,
      discountPlanType: discountPlans.discountPlanType,
      status: discountPlans.status,
      initialQuantity: discountPlans.initialQuantity,
      usedQuantity: discountPlans.usedQuantity,
      applicationLimit: discountPlans.applicationLimit,
      automaticApplication: discountPlans.automaticApplication,
      sequence: discountPlans.sequence,
    })
    .from(discountPlans)
    .where(
      or(
        codes.length > 0 ? inArray(discountPlans.code, codes) : sql`false`,
        ids.length > 0 ? inArray(discountPlans.id, ids) : sql`false`,
      ),
    )
  if (plans.length === 0) return []
  const items = await db
    .select({
      planId: discountPlanItems.discountPlanId,
      id: discountPlanItems.id,
      code: discountPlanItems.code,
      description: discountPlanItems.description,
      type: discountPlanItems.discountPlanItemType,
      value: discountPlanItems.discountValue,
      articleId: discountPlanItems.accountingArticleId,
      articleCode: accountingArticles.code,
      articleTaxClassId: accountingArticles.taxClassId,
    })
    .from(discountPlanItems)
    .leftJoin(accountingArticles, eq(accountingArticles.id, discountPlanItems.accountingArticleId))
    .where(
      inArray(
        discountPlanItems.discountPlanId,
        plans.map((p) => p.id),
      ),
    )
    .orderBy(asc(discountPlanItems.sequence), asc(discountPlanItems.id))
  return plans.map((plan) => ({
    ...plan,
    items: items
      .filter((i) => i.planId === plan.id)
      .map(({ planId: _planId, ...item }) => ({ ...item, type: item.type as DiscountItemRow['type'] })),
  }))
}
