/**
 * What ordering reads of the catalog, the accounts and the reference data, in a few batched queries: the catalog as
 * of now, for the rules of order resolution and the inputs of the rating engine. Read-only; the catalog and
 * discounts modules own these tables.
 */
import { and, asc, eq, inArray, or, sql } from 'drizzle-orm'
import type { Db } from '../../kernel/db/database.ts'
import {
  accountingArticles,
  attributes,
  billingAccounts,
  calendars,
  chargeTemplates,
  discountPlanItems,
  discountPlans,
  offerComponents,
  offerDiscountPlans,
  offerSellers,
  offerServiceTemplates,
  offerTemplates,
  pricingMatrixColumns,
  pricingMatrixRows,
  pricingVersions,
  productDiscountPlans,
  products,
  productVersionAttributes,
  productVersionCharges,
  productVersions,
  sellers,
  serviceChargeTemplates,
  serviceTemplates,
  taxClasses,
  taxes,
  taxMappings,
  tradingCurrencies,
  userAccounts,
} from '../../kernel/db/schema/index.ts'
import { money } from '../../kernel/money.ts'
import type { CalendarShape } from '../accounts/index.ts'
import { parsePriceFormula, type MatrixCell, type MatrixColumnType, type PricingDefinition } from '../pricing/index.ts'
import type { ChargeType, PricingSnapshot, TaxMapping } from '../rating/index.ts'

/**
 * Runs reads one after the other. Inside a transaction they share one connection, on which node-postgres would
 * only queue concurrent queries (a use it deprecates); PGlite has one connection anyway.
 */
export async function inTurn<T extends unknown[]>(...tasks: { [K in keyof T]: () => PromiseLike<T[K]> }): Promise<T> {
  const results: unknown[] = []
  for (const task of tasks) results.push(await task())
  return results as T
}

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
  for (const a of linkedAttributes) {
    const { versionId, ...attribute } = a
    result.get(versionId)!.attributes.push(attribute)
  }
  for (const c of linkedCharges) result.get(c.versionId)!.chargeIds.push(c.chargeId)
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
  for (const row of found) result.get(row.serviceId)!.push(row.chargeId)
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
    })
    .from(chargeTemplates)
    .leftJoin(calendars, eq(calendars.id, chargeTemplates.calendarId))
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

/**
 * The published pricing of charges on days (end-exclusive timeline), as pure definitions. Keyed `chargeId@day`;
 * absent when the charge has no published price that day.
 */
export async function pricingOn(
  db: Db,
  wanted: readonly { chargeId: number; day: string }[],
): Promise<Map<string, PricingSnapshot>> {
  const result = new Map<string, PricingSnapshot>()
  if (wanted.length === 0) return result
  const versions = await db
    .select({
      id: pricingVersions.id,
      chargeId: pricingVersions.chargeId,
      version: pricingVersions.version,
      pricingModel: pricingVersions.pricingModel,
      validFrom: pricingVersions.validFrom,
      validTo: pricingVersions.validTo,
      price: pricingVersions.price,
      priceFx: pricingVersions.priceFx,
      currency: tradingCurrencies.code,
    })
    .from(pricingVersions)
    .innerJoin(tradingCurrencies, eq(tradingCurrencies.id, pricingVersions.currencyId))
    .where(
      and(
        inArray(pricingVersions.chargeId, [...new Set(wanted.map((w) => w.chargeId))]),
        eq(pricingVersions.status, 'PUBLISHED'),
      ),
    )
  const chosen = new Map<string, (typeof versions)[number]>()
  for (const { chargeId, day } of wanted) {
    const valid = versions
      .filter(
        (v) =>
          v.chargeId === chargeId &&
          (v.validFrom === null || v.validFrom <= day) &&
          (v.validTo === null || v.validTo > day),
      )
      .sort((a, b) => (b.validFrom ?? '').localeCompare(a.validFrom ?? ''))[0]
    if (valid) chosen.set(`${chargeId}@${day}`, valid)
  }
  const matrixIds = [...new Set([...chosen.values()].filter((v) => v.pricingModel === 'MATRIX').map((v) => v.id))]
  const [columns, rows] =
    matrixIds.length === 0
      ? [[], []]
      : await inTurn(
          () =>
            db
              .select({
                versionId: pricingMatrixColumns.pricingVersionId,
                code: pricingMatrixColumns.code,
                type: pricingMatrixColumns.columnType,
                position: pricingMatrixColumns.position,
                attributeCode: attributes.code,
              })
              .from(pricingMatrixColumns)
              .innerJoin(attributes, eq(attributes.id, pricingMatrixColumns.attributeId))
              .where(inArray(pricingMatrixColumns.pricingVersionId, matrixIds))
              .orderBy(asc(pricingMatrixColumns.position)),
          () =>
            db
              .select({
                versionId: pricingMatrixRows.pricingVersionId,
                priority: pricingMatrixRows.priority,
                price: pricingMatrixRows.price,
                values: pricingMatrixRows.values,
              })
              .from(pricingMatrixRows)
              .where(inArray(pricingMatrixRows.pricingVersionId, matrixIds))
              .orderBy(asc(pricingMatrixRows.priority)),
        )
  const definitions = new Map<number, PricingDefinition>()
  const definitionOf = (v: (typeof versions)[number]): PricingDefinition => {
    let definition = definitions.get(v.id)
    if (definition) return definition
    switch (v.pricingModel) {
      case 'FORMULA':
        definition = { model: 'FORMULA', formula: parsePriceFormula(v.priceFx ?? '') }
        break
      case 'MATRIX':
        definition = {
          model: 'MATRIX',
          columns: columns
            .filter((c) => c.versionId === v.id)
            .map((c) => ({
              code: c.code,
              type: c.type as MatrixColumnType,
              position: c.position,
              attributeCode: c.attributeCode,
            })),
          rows: rows
            .filter((r) => r.versionId === v.id)
            .map((r) => ({
              priority: r.priority,
              price: money(r.price),
              values: r.values as unknown as MatrixCell[],
            })),
        }
        break
      default:
        definition = { model: 'FLAT', price: money(v.price) }
    }
    definitions.set(v.id, definition)
    return definition
  }
  for (const [key, v] of chosen) {
    result.set(key, { versionId: v.id, version: v.version, currency: v.currency, definition: definitionOf(v) })
  }
  return result
}

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

/** The tax mappings of tax classes, with their taxes. */
export async function taxMappingsOf(db: Db, taxClassIds: readonly number[]): Promise<TaxMapping[]> {
  if (taxClassIds.length === 0) return []
  const found = await db
    .select({
      id: taxMappings.id,
      taxClassId: taxMappings.taxClassId,
      sellerCountryId: taxMappings.sellerCountryId,
      billingCountryId: taxMappings.billingCountryId,
      priority: taxMappings.priority,
      taxId: taxes.id,
      taxCode: taxes.code,
      percent: taxes.percent,
    })
    .from(taxMappings)
    .innerJoin(taxes, eq(taxes.id, taxMappings.taxId))
    .where(inArray(taxMappings.taxClassId, [...new Set(taxClassIds)]))
  return found.map((m) => ({
    id: m.id,
    taxClassId: m.taxClassId,
    sellerCountryId: m.sellerCountryId,
    billingCountryId: m.billingCountryId,
    priority: m.priority,
    tax: { id: m.taxId, code: m.taxCode, percent: money(m.percent) },
  }))
}

/** Tax class codes by id (for messages). */
export async function taxClassCodes(db: Db, ids: readonly number[]): Promise<Map<number, string>> {
  if (ids.length === 0) return new Map()
  const found = await db
    .select({ id: taxClasses.id, code: taxClasses.code })
    .from(taxClasses)
    .where(inArray(taxClasses.id, [...new Set(ids)]))
  return new Map(found.map((r) => [r.id, r.code]))
}
