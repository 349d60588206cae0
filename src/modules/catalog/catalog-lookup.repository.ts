/**
 * Batched reads of the catalog by code or id, as order resolution and the ratings take it: offers with their
 * components, services, sellers and discount plans; products with their versions and discount plans; the attributes
 * and charges linked to product versions and services; charges with their calendar. Read-only and not filtered by
 * status: the callers apply the ordering rules (orderable statuses, published versions, active charges).
 */
import { asc, eq, inArray, sql } from 'drizzle-orm'
import { one, rows, type Db } from '../../kernel/db/database.ts'
import { inTurn } from '../../kernel/db/in-turn.ts'
import {
  attributes,
  calendars,
  chargeTemplates,
  offerComponents,
  offerDiscountPlans,
  offerSellers,
  offerServiceTemplates,
  offerTemplates,
  productDiscountPlans,
  products,
  productVersionAttributes,
  productVersionCharges,
  productVersions,
  serviceChargeTemplates,
  serviceTemplates,
  unitsOfMeasure,
} from '../../kernel/db/schema/index.ts'
import type { CalendarShape } from '../accounts/index.ts'
import type { CHARGE_TYPES } from './charge.model.ts'

/** RECURRING, USAGE or ONESHOT. */
type ChargeType = (typeof CHARGE_TYPES)[number]

export interface OfferRow {
  id: number
  code: string
  description: string | null
  status: string
  validFrom: Date | null
  validTo: Date | null
  components: {
    productId: number
    productCode: string
    mandatory: boolean
    minQuantity: string | null
    maxQuantity: string | null
  }[]
  /** Legacy services, in sequence order. */
  services: { id: number; code: string; description: string | null; mandatory: boolean }[]
  sellerIds: number[]
  discountPlanIds: number[]
}

export async function offersByCode(db: Db, codes: readonly string[]): Promise<Map<string, OfferRow>> {
  const result = new Map<string, OfferRow>()
  if (codes.length === 0) return result
  const offers = await db
    .select({
      id: offerTemplates.id,
      code: offerTemplates.code,
      description: offerTemplates.description,
      status: offerTemplates.lifeCycleStatus,
      validFrom: offerTemplates.validFrom,
      validTo: offerTemplates.validTo,
    })
    .from(offerTemplates)
    .where(inArray(offerTemplates.code, [...codes]))
  if (offers.length === 0) return result
  const ids = offers.map((o) => o.id)
  const [components, services, offerSellerRows, plans] = await inTurn(
    () =>
      db
        .select({
          offerId: offerComponents.offerTemplateId,
          productId: offerComponents.productId,
          productCode: products.code,
          mandatory: offerComponents.mandatory,
          minQuantity: offerComponents.minQuantity,
          maxQuantity: offerComponents.maxQuantity,
        })
        .from(offerComponents)
        .innerJoin(products, eq(products.id, offerComponents.productId))
        .where(inArray(offerComponents.offerTemplateId, ids))
        .orderBy(asc(offerComponents.sequence), asc(offerComponents.id)),
    () =>
      db
        .select({
          offerId: offerServiceTemplates.offerTemplateId,
          id: serviceTemplates.id,
          code: serviceTemplates.code,
          description: serviceTemplates.description,
          mandatory: offerServiceTemplates.mandatory,
        })
        .from(offerServiceTemplates)
        .innerJoin(serviceTemplates, eq(serviceTemplates.id, offerServiceTemplates.serviceTemplateId))
        .where(inArray(offerServiceTemplates.offerTemplateId, ids))
        .orderBy(asc(offerServiceTemplates.sequence), asc(offerServiceTemplates.id)),
    () =>
      db
        .select({ offerId: offerSellers.offerTemplateId, sellerId: offerSellers.sellerId })
        .from(offerSellers)
        .where(inArray(offerSellers.offerTemplateId, ids)),
    () =>
      db
        .select({ offerId: offerDiscountPlans.offerTemplateId, planId: offerDiscountPlans.discountPlanId })
        .from(offerDiscountPlans)
        .where(inArray(offerDiscountPlans.offerTemplateId, ids))
        .orderBy(asc(offerDiscountPlans.id)),
  )
  for (const offer of offers) {
    result.set(offer.code, {
      ...offer,
      components: components.filter((c) => c.offerId === offer.id),
      services: services.filter((s) => s.offerId === offer.id),
      sellerIds: offerSellerRows.filter((s) => s.offerId === offer.id).map((s) => s.sellerId),
      discountPlanIds: plans.filter((p) => p.offerId === offer.id).map((p) => p.planId),
    })
  }
  return result
}

export interface ProductVersionRow {
  id: number
  version: number
  status: string
  validFrom: string | null
  validTo: string | null
}

export interface ProductRow {
  id: number
  code: string
  versions: ProductVersionRow[]
  discountPlanIds: number[]
}

export async function productsByCode(db: Db, codes: readonly string[]): Promise<Map<string, ProductRow>> {
  const result = new Map<string, ProductRow>()
  if (codes.length === 0) return result
  const found = await db
    .select({ id: products.id, code: products.code })
    .from(products)
    .where(inArray(products.code, [...codes]))
  if (found.length === 0) return result
  const ids = found.map((p) => p.id)
  const [versions, plans] = await inTurn(
    () =>
      db
        .select({
          productId: productVersions.productId,
          id: productVersions.id,
          version: productVersions.version,
          status: productVersions.status,
          validFrom: productVersions.validFrom,
          validTo: productVersions.validTo,
        })
        .from(productVersions)
        .where(inArray(productVersions.productId, ids))
        .orderBy(asc(productVersions.version)),
    () =>
      db
        .select({ productId: productDiscountPlans.productId, planId: productDiscountPlans.discountPlanId })
        .from(productDiscountPlans)
        .where(inArray(productDiscountPlans.productId, ids)),
  )
  for (const product of found) {
    result.set(product.code, {
      ...product,
      versions: versions.filter((v) => v.productId === product.id),
      discountPlanIds: plans.filter((p) => p.productId === product.id).map((p) => p.planId),
    })
  }
  return result
}

export interface AttributeRow {
  code: string
  attributeType: string
  allowedValues: string[]
  disabled: boolean
}

export interface VersionContent {
  attributes: AttributeRow[]
  /** In link order. */
  chargeIds: number[]
}

/** The linked attributes and charges of product versions. */
export async function versionContents(db: Db, versionIds: readonly number[]): Promise<Map<number, VersionContent>> {
  const result = new Map<number, VersionContent>(versionIds.map((id) => [id, { attributes: [], chargeIds: [] }]))
  if (versionIds.length === 0) return result
  const [linkedAttributes, linkedCharges] = await inTurn(
    () =>
      db
        .select({
          versionId: productVersionAttributes.productVersionId,
          code: attributes.code,
          attributeType: attributes.attributeType,
          allowedValues: attributes.allowedValues,
          disabled: attributes.disabled,
        })
        .from(productVersionAttributes)
        .innerJoin(attributes, eq(attributes.id, productVersionAttributes.attributeId))
        .where(inArray(productVersionAttributes.productVersionId, [...versionIds])),
    () =>
      db
        .select({ versionId: productVersionCharges.productVersionId, chargeId: productVersionCharges.chargeId })
        .from(productVersionCharges)
        .where(inArray(productVersionCharges.productVersionId, [...versionIds]))
        .orderBy(asc(productVersionCharges.id)),
  )
  const contentOf = (versionId: number): VersionContent => {
    let content = result.get(versionId)
    if (!content) {
      content = { attributes: [], chargeIds: [] }
      result.set(versionId, content)
    }
    return content
  }
  for (const { versionId, ...attribute } of linkedAttributes) contentOf(versionId).attributes.push(attribute)
  for (const c of linkedCharges) contentOf(c.versionId).chargeIds.push(c.chargeId)
  return result
}

/** The charges of legacy services, in link order. */
export async function serviceCharges(db: Db, serviceIds: readonly number[]): Promise<Map<number, number[]>> {
  const result = new Map<number, number[]>(serviceIds.map((id) => [id, []]))
  if (serviceIds.length === 0) return result
  const found = await db
    .select({ serviceId: serviceChargeTemplates.serviceTemplateId, chargeId: serviceChargeTemplates.chargeId })
    .from(serviceChargeTemplates)
    .where(inArray(serviceChargeTemplates.serviceTemplateId, [...serviceIds]))
    .orderBy(asc(serviceChargeTemplates.id))
  for (const row of found) {
    const charges = result.get(row.serviceId) ?? []
    charges.push(row.chargeId)
    result.set(row.serviceId, charges)
  }
  return result
}

export interface ChargeRow {
  id: number
  code: string
  description: string | null
  type: ChargeType
  oneShotType: string | null
  status: string
  taxClassId: number
  accountingArticleId: number
  subscriptionProrata: boolean
  calendar: CalendarShape | null
  /** The code of the unit a usage charge is rated in (`MB`), if it names one. */
  ratingUnit: string | null
}

export async function chargesById(db: Db, ids: readonly number[]): Promise<Map<number, ChargeRow>> {
  const result = new Map<number, ChargeRow>()
  if (ids.length === 0) return result
  const found = await db
    .select({
      id: chargeTemplates.id,
      code: chargeTemplates.code,
      description: chargeTemplates.description,
      type: chargeTemplates.type,
      oneShotType: chargeTemplates.oneShotType,
      status: chargeTemplates.status,
      taxClassId: chargeTemplates.taxClassId,
      accountingArticleId: chargeTemplates.accountingArticleId,
      subscriptionProrata: chargeTemplates.subscriptionProrata,
      calendarType: calendars.calendarType,
      periodUnit: calendars.periodUnit,
      periodLength: calendars.periodLength,
      referenceDate: calendars.referenceDate,
      days: calendars.days,
      ratingUnit: unitsOfMeasure.code,
    })
    .from(chargeTemplates)
    .leftJoin(calendars, eq(calendars.id, chargeTemplates.calendarId))
    .leftJoin(unitsOfMeasure, eq(unitsOfMeasure.id, chargeTemplates.ratingUnitOfMeasureId))
    .where(inArray(chargeTemplates.id, [...new Set(ids)]))
  for (const row of found) {
    const { calendarType, periodUnit, periodLength, referenceDate, days, ...charge } = row
    result.set(row.id, {
      ...charge,
      type: charge.type as ChargeType,
      calendar: calendarType
        ? {
            calendarType: calendarType as CalendarShape['calendarType'],
            periodUnit: periodUnit as CalendarShape['periodUnit'],
            periodLength,
            referenceDate,
            days,
          }
        : null,
    })
  }
  return result
}

/** An offer's products (code, default quantity) in sequence order: what an offer reservation orders. */
export async function offerProducts(
  db: Db,
  offerCode: string,
): Promise<{ offerId: number; products: { code: string; quantity: string }[] } | undefined> {
  const offer = await one<{ id: unknown }>(db, sql`select id from offer_template where code = ${offerCode}`)
  if (!offer) return undefined
  const found = await rows<{ code: string; quantity: string }>(
    db,
    sql`select p.code, oc.default_quantity::text as quantity from offer_component oc join product p on p.id = oc.product_id
      where oc.offer_template_id = ${Number(offer.id)} order by oc.sequence, oc.id`,
  )
  return { offerId: Number(offer.id), products: found }
}
