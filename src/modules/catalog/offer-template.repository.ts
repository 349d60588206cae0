import { and, asc, eq, inArray, notInArray, sql, type SQL } from 'drizzle-orm'
import { rows, type Db } from '../../kernel/db/database.ts'
import {
  offerCategories,
  offerComponents,
  offerDiscountPlans,
  offerSellers,
  offerServiceTemplates,
  offerTemplateCategories,
  offerTemplates,
  products,
  serviceTemplates,
} from '../../kernel/db/schema/index.ts'
import type { DecimalJson } from '../../kernel/decimal-json.ts'
import { decimalWire } from '../pricing/index.ts'
import { sellerCodeOf } from '../accounts/index.ts'
import { discountPlanCodeOf } from '../discounts/index.ts'

// The codes of linked sellers and discount plans, read through their modules' lookups.
const sellerCode = sellerCodeOf(sql`${offerSellers.sellerId}`)
const planCode = discountPlanCodeOf(sql`${offerDiscountPlans.discountPlanId}`)

export interface ComponentRow {
  productId: number
  mandatory: boolean
  defaultQuantity: string
  minQuantity: string | null
  maxQuantity: string | null
  sequence: number
}

export interface ServiceLinkRow {
  serviceTemplateId: number
  mandatory: boolean
  sequence: number
}

/** The linked records of offers, as the v1 resource shows them. */
export interface OfferLinks {
  offerComponents: {
    productCode: string
    mandatory: boolean
    defaultQuantity: DecimalJson
    minQuantity: DecimalJson | null
    maxQuantity: DecimalJson | null
    sequence: number
  }[]
  offerServiceTemplates: { serviceTemplateCode: string; mandatory: boolean; sequence: number }[]
  discountPlans: string[]
  sellers: string[]
  offerTemplateCategories: string[]
}

const emptyLinks = (): OfferLinks => ({
  offerComponents: [],
  offerServiceTemplates: [],
  discountPlans: [],
  sellers: [],
  offerTemplateCategories: [],
})

/** Links of many offers in five queries, whatever their number. */
export async function linksOf(db: Db, offerIds: readonly number[]): Promise<Map<number, OfferLinks>> {
  const result = new Map(offerIds.map((id) => [id, emptyLinks()]))
  if (offerIds.length === 0) return result
  const ids = [...offerIds]
  const components = await db
    .select({
      offerId: offerComponents.offerTemplateId,
      productCode: products.code,
      mandatory: offerComponents.mandatory,
      defaultQuantity: offerComponents.defaultQuantity,
      minQuantity: offerComponents.minQuantity,
      maxQuantity: offerComponents.maxQuantity,
      sequence: offerComponents.sequence,
    })
    .from(offerComponents)
    .innerJoin(products, eq(products.id, offerComponents.productId))
    .where(inArray(offerComponents.offerTemplateId, ids))
    .orderBy(asc(offerComponents.sequence), asc(offerComponents.id))
  for (const { offerId, ...c } of components) {
    result.get(offerId)!.offerComponents.push({
      ...c,
      defaultQuantity: decimalWire(c.defaultQuantity),
      minQuantity: c.minQuantity === null ? null : decimalWire(c.minQuantity),
      maxQuantity: c.maxQuantity === null ? null : decimalWire(c.maxQuantity),
    })
  }
  const services = await db
    .select({
      offerId: offerServiceTemplates.offerTemplateId,
      serviceTemplateCode: serviceTemplates.code,
      mandatory: offerServiceTemplates.mandatory,
      sequence: offerServiceTemplates.sequence,
    })
    .from(offerServiceTemplates)
    .innerJoin(serviceTemplates, eq(serviceTemplates.id, offerServiceTemplates.serviceTemplateId))
    .where(inArray(offerServiceTemplates.offerTemplateId, ids))
    .orderBy(asc(offerServiceTemplates.sequence), asc(offerServiceTemplates.id))
  for (const { offerId, ...s } of services) result.get(offerId)!.offerServiceTemplates.push(s)
  const codes = async (
    key: 'discountPlans' | 'sellers' | 'offerTemplateCategories',
    rows: Promise<{ offerId: number; code: string }[]>,
  ) => {
    for (const row of await rows) result.get(row.offerId)![key].push(row.code)
  }
  await codes(
    'discountPlans',
    db
      .select({ offerId: offerDiscountPlans.offerTemplateId, code: planCode })
      .from(offerDiscountPlans)
      .where(inArray(offerDiscountPlans.offerTemplateId, ids))
      .orderBy(asc(planCode)),
  )
  await codes(
    'sellers',
    db
      .select({ offerId: offerSellers.offerTemplateId, code: sellerCode })
      .from(offerSellers)
      .where(inArray(offerSellers.offerTemplateId, ids))
      .orderBy(asc(sellerCode)),
  )
  await codes(
    'offerTemplateCategories',
    db
      .select({ offerId: offerCategories.offerTemplateId, code: offerTemplateCategories.code })
      .from(offerCategories)
      .innerJoin(offerTemplateCategories, eq(offerTemplateCategories.id, offerCategories.offerTemplateCategoryId))
      .where(inArray(offerCategories.offerTemplateId, ids))
      .orderBy(asc(offerTemplateCategories.code)),
  )
  return result
}

export interface OfferValues {
  code?: string
  description?: string | null
  name?: string | null
  lifeCycleStatus?: string
  autoEndOfEngagement?: boolean
  attributes?: Record<string, unknown>
}

export const isDateOnly = (value: string): boolean => /^\d{4}-\d{2}-\d{2}$/.test(value)

/** Validity bounds as SQL: a date-only value is the start of that day in the tenant time zone. */
export function instantSql(value: string, timeZone: string | undefined): SQL {
  if (!isDateOnly(value)) return sql`${value}::timestamptz`
  if (timeZone === undefined) throw new Error(`the date ${value} needs the tenant time zone`)
  return sql`(${value}::timestamp at time zone ${timeZone})`
}

export async function insertOffer(db: Db, values: OfferValues & { code: string }, validity: Validity, actor: string) {
  const inserted = await db
    .insert(offerTemplates)
    .values({ ...values, ...validity, creator: actor })
    .returning({ id: offerTemplates.id })
  return inserted[0]!.id
}

export interface Validity {
  validFrom?: SQL | null
  validTo?: SQL | null
}

export async function updateOffer(db: Db, id: number, values: OfferValues, validity: Validity, actor: string) {
  await db
    .update(offerTemplates)
    .set({ ...values, ...validity, updated: sql`now()`, updater: actor })
    .where(eq(offerTemplates.id, id))
}

export async function deleteOffer(db: Db, id: number): Promise<void> {
  await db.delete(offerTemplates).where(eq(offerTemplates.id, id))
}

export async function replaceComponents(db: Db, offerId: number, rows: readonly ComponentRow[]): Promise<void> {
  await db.delete(offerComponents).where(eq(offerComponents.offerTemplateId, offerId))
  if (rows.length > 0) await db.insert(offerComponents).values(rows.map((r) => ({ ...r, offerTemplateId: offerId })))
}

/**
 * Sets the products of an offer in the given order: components of products that stay keep their settings, new ones
 * take the column defaults (optional, quantity 1).
 */
export async function setProducts(db: Db, offerId: number, productIds: readonly number[]): Promise<void> {
  const ids = [...productIds]
  await db
    .delete(offerComponents)
    .where(
      ids.length > 0
        ? and(eq(offerComponents.offerTemplateId, offerId), notInArray(offerComponents.productId, ids))
        : eq(offerComponents.offerTemplateId, offerId),
    )
  if (ids.length === 0) return
  await db
    .insert(offerComponents)
    .values(ids.map((productId, sequence) => ({ offerTemplateId: offerId, productId, sequence })))
    .onConflictDoUpdate({
      target: [offerComponents.offerTemplateId, offerComponents.productId],
      set: { sequence: sql`excluded.sequence` },
    })
}

/** Adds a product after the others with the default settings; false when the offer already has it. */
export async function addProduct(db: Db, offerId: number, productId: number): Promise<boolean> {
  const added = await rows<{ id: unknown }>(
    db,
    sql`insert into offer_component (offer_template_id, product_id, sequence)
      select ${offerId}, ${productId}, coalesce(max(sequence) + 1, 0) from offer_component where offer_template_id = ${offerId}
      on conflict (offer_template_id, product_id) do nothing returning id`,
  )
  return added.length > 0
}

/** Removes the component of the product with this code; false when the offer has no such product. */
export async function removeProduct(db: Db, offerId: number, productCode: string): Promise<boolean> {
  const removed = await db
    .delete(offerComponents)
    .where(
      and(
        eq(offerComponents.offerTemplateId, offerId),
        eq(offerComponents.productId, sql`(select id from ${products} where ${products.code} = ${productCode})`),
      ),
    )
    .returning({ id: offerComponents.id })
  return removed.length > 0
}

export async function replaceServices(db: Db, offerId: number, rows: readonly ServiceLinkRow[]): Promise<void> {
  await db.delete(offerServiceTemplates).where(eq(offerServiceTemplates.offerTemplateId, offerId))
  if (rows.length > 0) {
    await db.insert(offerServiceTemplates).values(rows.map((r) => ({ ...r, offerTemplateId: offerId })))
  }
}

export async function replaceDiscountPlans(db: Db, offerId: number, ids: readonly number[]): Promise<void> {
  await db.delete(offerDiscountPlans).where(eq(offerDiscountPlans.offerTemplateId, offerId))
  if (ids.length > 0) {
    await db
      .insert(offerDiscountPlans)
      .values(ids.map((discountPlanId) => ({ offerTemplateId: offerId, discountPlanId })))
  }
}

/** The sellers of an offer, by id and code (none: the offer is sold by every seller). */
export async function sellersOf(db: Db, offerId: number): Promise<{ id: number; code: string }[]> {
  return db
    .select({ id: offerSellers.sellerId, code: sellerCode })
    .from(offerSellers)
    .where(eq(offerSellers.offerTemplateId, offerId))
    .orderBy(asc(sellerCode))
}

export async function replaceSellers(db: Db, offerId: number, ids: readonly number[]): Promise<void> {
  await db.delete(offerSellers).where(eq(offerSellers.offerTemplateId, offerId))
  if (ids.length > 0)
    await db.insert(offerSellers).values(ids.map((sellerId) => ({ offerTemplateId: offerId, sellerId })))
}

export async function replaceCategories(db: Db, offerId: number, ids: readonly number[]): Promise<void> {
  await db.delete(offerCategories).where(eq(offerCategories.offerTemplateId, offerId))
  if (ids.length > 0) {
    await db
      .insert(offerCategories)
      .values(ids.map((offerTemplateCategoryId) => ({ offerTemplateId: offerId, offerTemplateCategoryId })))
  }
}
