import type { Decimal } from 'decimal.js'
import type { Db } from '../../kernel/db/database.ts'
import { AppError, validationError, type ErrorDetail } from '../../kernel/errors.ts'
import { formatDecimal } from '../../kernel/money.ts'
import { cachedTenantSettings } from '../../kernel/settings.ts'
import { currencyMismatch, priceNotFound, taxNotFound } from './rating-glue.ts'
import { firstServicePeriod, selectTax, type DiscountLevel, type TaxRate } from '../rating/index.ts'
import { dayIn, readDay } from '../../kernel/time-zone.ts'
import { accountsOfOtherSellers, orderParties } from './order-parties.ts'
import {
  attributeValue,
  attributeValueProblem,
  ORDERABLE_OFFER_STATUSES,
  USABLE_PLAN_STATUSES,
  type OrderInput,
  type ResolvedCharge,
  type ResolvedOffer,
  type ResolvedOrder,
  type ResolvedPlan,
  type ResolvedProduct,
  type ResolvedService,
} from './order.model.ts'
import { taxClassCodes, taxMappingsOf } from '../accounts/index.ts'
import {
  chargesById,
  offersByCode,
  productsByCode,
  serviceCharges,
  versionContents,
  versionValidOn,
  type ChargeRow,
  type OfferRow,
  type ProductRow,
  type ProductVersionRow,
} from '../catalog/index.ts'
import { discountPlansOf } from '../discounts/index.ts'
import { inTurn } from '../../kernel/db/in-turn.ts'
import { pricingOn, readDecimal } from '../pricing/index.ts'

export interface ResolveOptions {
  readonly now: Date
  /** Row-level restriction of the caller: the sellers it may order for (null: any). */
  readonly sellerCodes: readonly string[] | null
}

const offerField = (i: number) => `orderOffers[${i}]`
const productField = (i: number, j: number) => `orderOffers[${i}].orderProducts[${j}]`

/** A charge is orderable once ACTIVE (its first pricing version published): never a silent zero. */
function chargeProblem(charge: ChargeRow, owner: string): string | undefined {
  return charge.status === 'ACTIVE'
    ? undefined
    : `charge ${charge.code} of ${owner} is ${charge.status}: only ACTIVE charges can be ordered`
}

interface ChargeSeed {
  chargeId: number
  quantity: Decimal
  attributes: Record<string, string>
  override: Decimal | null
  day: string
}

/**
 * Checks an order against the accounts and the catalog (catalog document §4.3 rules 1, 4 and 6; DECISIONS "Orders",
 * "Discount scope") and gathers what rating needs: versions, charges, prices, taxes, periods and discount plans.
 * Every bad reference is a 400 naming the field and the code; a plan item without accounting article is the
 * document's VALIDATE_FAILED. Creates nothing: preview, creation and validation all start here.
 */
export async function resolveOrder(db: Db, input: OrderInput, options: ResolveOptions): Promise<ResolvedOrder> {
  const { timeZone, pricesIncludeTax } = await cachedTenantSettings(db)
  const today = dayIn(options.now, timeZone)
  const problems: ErrorDetail[] = []

  const [seller, billingAccount, userAccount] = await orderParties(db, input, options.sellerCodes)
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
  if (seller) problems.push(...(await accountsOfOtherSellers(db, seller, billingAccount, userAccount)))

  const orderOffers = input.orderOffers
  const [offers, products] = await inTurn(
    () => offersByCode(db, [...new Set(orderOffers.map((o) => o.offerTemplateCode))]),
    () =>
      productsByCode(db, [...new Set(orderOffers.flatMap((o) => (o.orderProducts ?? []).map((p) => p.productCode)))]),
  )

  interface ProductDraft {
    position: number
    product: ProductRow
    version: ProductVersionRow
    quantity: Decimal
  }
  interface OfferDraft {
    position: number
    offer: OfferRow
    day: string
    products: ProductDraft[]
  }
  const drafts: OfferDraft[] = []
  const subscriptionCodes = new Set<string>()
  for (const [i, orderOffer] of orderOffers.entries()) {
    const field = offerField(i)
    if (orderOffer.subscriptionCode !== undefined) {
      if (subscriptionCodes.has(orderOffer.subscriptionCode)) {
        problems.push({
          field: `${field}.subscriptionCode`,
          message: `subscription ${orderOffer.subscriptionCode} is ordered twice`,
        })
      }
      subscriptionCodes.add(orderOffer.subscriptionCode)
    }
    const day = orderOffer.subscriptionDate === undefined ? today : readDay(orderOffer.subscriptionDate, timeZone)
    if (day === undefined) {
      problems.push({ field: `${field}.subscriptionDate`, message: 'expected an ISO-8601 date (yyyy-MM-dd)' })
    }
    const offer = offers.get(orderOffer.offerTemplateCode)
    if (!offer) {
      problems.push({
        field: `${field}.offerTemplateCode`,
        message: `no offer template with code '${orderOffer.offerTemplateCode}'`,
      })
      continue
    }
    if (!ORDERABLE_OFFER_STATUSES.includes(offer.status)) {
      problems.push({
        field: `${field}.offerTemplateCode`,
        message: `offer ${offer.code} is ${offer.status}: orders need an ACTIVE or LAUNCHED offer`,
      })
    }
    if (seller && offer.sellerIds.length > 0 && !offer.sellerIds.includes(seller.id)) {
      problems.push({
        field: `${field}.offerTemplateCode`,
        message: `offer ${offer.code} is not sold by seller ${seller.code}`,
      })
    }
    if (day !== undefined) {
      const from = offer.validFrom ? dayIn(offer.validFrom, timeZone) : null
      const to = offer.validTo ? dayIn(offer.validTo, timeZone) : null
      if ((from !== null && day < from) || (to !== null && day >= to)) {
        problems.push({
          field: `${field}.subscriptionDate`,
          message: `offer ${offer.code} is not valid on ${day}`,
        })
      }
    }
    const draft: OfferDraft = { position: i, offer, day: day ?? today, products: [] }
    const ordered = new Set<string>()
    for (const [j, orderProduct] of (orderOffer.orderProducts ?? []).entries()) {
      const pField = productField(i, j)
      ordered.add(orderProduct.productCode)
      const product = products.get(orderProduct.productCode)
      if (!product) {
        problems.push({ field: `${pField}.productCode`, message: `no product with code '${orderProduct.productCode}'` })
        continue
      }
      const component = offer.components.find((c) => c.productId === product.id)
      if (!component) {
        problems.push({
          field: `${pField}.productCode`,
          message: `product ${product.code} is not part of offer ${offer.code}`,
        })
        continue
      }
      const quantity = readDecimal(orderProduct.quantity ?? 1, `${pField}.quantity`, problems, { minExclusive: 0 })
      if (
        quantity &&
        ((component.minQuantity !== null && quantity.lt(component.minQuantity)) ||
          (component.maxQuantity !== null && quantity.gt(component.maxQuantity)))
      ) {
        problems.push({
          field: `${pField}.quantity`,
          message: `offer ${offer.code} takes product ${product.code} in quantities from ${formatDecimal(component.minQuantity ?? 0)} to ${component.maxQuantity === null ? 'any' : formatDecimal(component.maxQuantity)}`,
        })
      }
      let version: ProductVersionRow | undefined
      if (orderProduct.productVersion !== undefined) {
        version = product.versions.find((v) => v.version === orderProduct.productVersion)
        if (!version) {
          problems.push({
            field: `${pField}.productVersion`,
            message: `product ${product.code} has no version ${orderProduct.productVersion}`,
          })
        } else if (version.status !== 'PUBLISHED') {
          problems.push({
            field: `${pField}.productVersion`,
            message: `version ${version.version} of product ${product.code} is ${version.status}, not PUBLISHED`,
          })
          version = undefined
        }
      } else if (day !== undefined) {
        version = versionValidOn(product.versions, day)
        if (!version) {
          problems.push({
            field: `${pField}.productVersion`,
            message: `product ${product.code} has no PUBLISHED version valid on ${day}`,
          })
        }
      }
      if (version && quantity) draft.products.push({ position: j, product, version, quantity })
    }
    for (const component of offer.components) {
      if (component.mandatory && !ordered.has(component.productCode)) {
        problems.push({
          field: `${field}.orderProducts`,
          message: `product ${component.productCode} is mandatory in offer ${offer.code}`,
        })
      }
    }
    drafts.push(draft)
  }

  const versionIds = drafts.flatMap((d) => d.products.map((p) => p.version.id))
  const serviceIds = drafts.flatMap((d) => d.offer.services.filter((s) => s.mandatory).map((s) => s.id))
  const [contents, servicesCharges] = await inTurn(
    () => versionContents(db, versionIds),
    () => serviceCharges(db, serviceIds),
  )
  const charges = await chargesById(db, [
    ...[...contents.values()].flatMap((c) => c.chargeIds),
    ...[...servicesCharges.values()].flat(),
  ])

  // Attributes, charges and overrides of each product; the charges of each mandatory service.
  const seeds = new Map<string, ChargeSeed[]>()
  const productExtras = new Map<string, { attributes: Record<string, string>; overrides: Map<string, Decimal> }>()
  for (const draft of drafts) {
    const orderOffer = orderOffers[draft.position]!
    for (const p of draft.products) {
      const pField = productField(draft.position, p.position)
      const orderProduct = orderOffer.orderProducts![p.position]!
      const content = contents.get(p.version.id)!
      const attributes: Record<string, string> = {}
      for (const [k, sent] of (orderProduct.orderAttributes ?? []).entries()) {
        const aField = `${pField}.orderAttributes[${k}]`
        const attribute = content.attributes.find((a) => a.code === sent.attributeCode)
        if (!attribute) {
          problems.push({
            field: `${aField}.attributeCode`,
            message: `attribute ${sent.attributeCode} is not an attribute of version ${p.version.version} of product ${p.product.code}`,
          })
          continue
        }
        if (Object.hasOwn(attributes, attribute.code)) {
          problems.push({ field: `${aField}.attributeCode`, message: `attribute ${attribute.code} is given twice` })
          continue
        }
        if (attribute.disabled) {
          problems.push({ field: `${aField}.attributeCode`, message: `attribute ${attribute.code} is disabled` })
          continue
        }
        const value = attributeValue(sent)
        if (value === null || value === undefined) continue
        const problem = attributeValueProblem(attribute, value)
        if (problem)
          problems.push({ field: aField, message: `attribute ${attribute.code}: ${problem}, not '${value}'` })
        else attributes[attribute.code] = value
      }
      const chargeRows = content.chargeIds.map((id) => charges.get(id)!)
      const overrides = new Map<string, Decimal>()
      for (const [k, override] of (orderProduct.chargeOverrides ?? []).entries()) {
        const oField = `${pField}.chargeOverrides[${k}]`
        if (!chargeRows.some((c) => c.code === override.chargeCode)) {
          problems.push({
            field: `${oField}.chargeCode`,
            message: `charge ${override.chargeCode} is not a charge of version ${p.version.version} of product ${p.product.code}`,
          })
          continue
        }
        if (overrides.has(override.chargeCode)) {
          problems.push({ field: `${oField}.chargeCode`, message: `charge ${override.chargeCode} is overridden twice` })
          continue
        }
        const unitPrice = readDecimal(override.unitPrice, `${oField}.unitPrice`, problems)
        if (unitPrice) overrides.set(override.chargeCode, unitPrice)
      }
      for (const charge of chargeRows) {
        const problem = chargeProblem(charge, `product ${p.product.code}`)
        if (problem) problems.push({ field: `${pField}.productCode`, message: problem })
      }
      productExtras.set(`${draft.position}:${p.position}`, { attributes, overrides })
      seeds.set(
        `${draft.position}:${p.position}`,
        chargeRows.map((charge) => ({
          chargeId: charge.id,
          quantity: p.quantity,
          attributes,
          override: overrides.get(charge.code) ?? null,
          day: draft.day,
        })),
      )
    }
    for (const service of draft.offer.services.filter((s) => s.mandatory)) {
      const chargeRows = servicesCharges.get(service.id)!.map((id) => charges.get(id)!)
      for (const charge of chargeRows) {
        const problem = chargeProblem(charge, `service ${service.code}`)
        if (problem) problems.push({ field: `${offerField(draft.position)}.offerTemplateCode`, message: problem })
      }
      seeds.set(
        `${draft.position}:service:${service.id}`,
        chargeRows.map((charge) => ({
          chargeId: charge.id,
          quantity: readDecimal(1, 'quantity', [])!,
          attributes: {},
          override: null,
          day: draft.day,
        })),
      )
    }
  }

  const plans = await discountSelection(db, input, drafts, problems)
  if (problems.length > 0) throw validationError(problems)
  for (const { plan } of plans) {
    const missing = plan.items.find((item) => item.articleId === null)
    if (missing) {
      throw new AppError('VALIDATE_FAILED', `discount plan item ${missing.code} has no accounting article`)
    }
  }

  const allSeeds = [...seeds.values()].flat()
  const pricing = await pricingOn(
    db,
    allSeeds.map((s) => ({ chargeId: s.chargeId, day: s.day })),
  )
  const currency = {
    id: billingAccount!.currencyId,
    code: billingAccount!.currencyCode,
    minorUnits: billingAccount!.minorUnits,
  }
  for (const seed of allSeeds) {
    const charge = charges.get(seed.chargeId)!
    const snapshot = pricing.get(`${seed.chargeId}@${seed.day}`)
    if (!snapshot && charge.type !== 'USAGE') {
      throw priceNotFound(charge.code, seed.day)
    }
    const mismatch =
      snapshot &&
      currencyMismatch(charge.code, snapshot.currency, {
        billingAccountCode: billingAccount!.code,
        currencyCode: currency.code,
      })
    if (mismatch) problems.push({ field: 'billingAccountCode', message: mismatch })
  }
  if (problems.length > 0) throw validationError(problems)

  const taxClassIds = [
    ...[...charges.values()].map((c) => c.taxClassId),
    ...plans.flatMap((p) => p.plan.items.map((i) => i.articleTaxClassId!)),
  ]
  const mappings = await taxMappingsOf(db, taxClassIds)
  const taxOf = async (taxClassId: number, what: string): Promise<TaxRate> => {
    const tax = selectTax(mappings, taxClassId, seller!.countryId, billingAccount!.countryId)
    if (tax) return tax
    const code = (await taxClassCodes(db, [taxClassId])).get(taxClassId) ?? String(taxClassId)
    throw taxNotFound(code, what, { sellerCode: seller!.code, billingAccountCode: billingAccount!.code })
  }
  const taxes = new Map<number, TaxRate>()
  const taxFor = async (taxClassId: number, what: string) => {
    let tax = taxes.get(taxClassId)
    if (!tax) {
      tax = await taxOf(taxClassId, what)
      taxes.set(taxClassId, tax)
    }
    return tax
  }

  const resolveCharges = async (key: string): Promise<ResolvedCharge[]> => {
    const result: ResolvedCharge[] = []
    for (const seed of seeds.get(key) ?? []) {
      const charge = charges.get(seed.chargeId)!
      result.push({
        charge,
        pricing: pricing.get(`${seed.chargeId}@${seed.day}`) ?? null,
        quantity: seed.quantity,
        attributes: seed.attributes,
        unitPriceOverride: seed.override,
        tax: await taxFor(charge.taxClassId, `charge ${charge.code}`),
        period:
          charge.type === 'RECURRING'
            ? firstServicePeriod(charge.calendar!, seed.day, charge.subscriptionProrata)
            : null,
      })
    }
    return result
  }

  const resolvedOffers: ResolvedOffer[] = []
  for (const draft of drafts) {
    const orderOffer = orderOffers[draft.position]!
    const resolvedProducts: ResolvedProduct[] = []
    for (const p of draft.products) {
      const extras = productExtras.get(`${draft.position}:${p.position}`)!
      resolvedProducts.push({
        position: p.position,
        product: { id: p.product.id, code: p.product.code },
        version: { id: p.version.id, version: p.version.version },
        quantity: p.quantity,
        attributes: extras.attributes,
        chargeOverrides: [...extras.overrides].map(([chargeCode, unitPrice]) => ({ chargeCode, unitPrice })),
        charges: await resolveCharges(`${draft.position}:${p.position}`),
      })
    }
    const resolvedServices: ResolvedService[] = []
    for (const service of draft.offer.services.filter((s) => s.mandatory)) {
      resolvedServices.push({
        service: { id: service.id, code: service.code, description: service.description },
        charges: await resolveCharges(`${draft.position}:service:${service.id}`),
      })
    }
    resolvedOffers.push({
      position: draft.position,
      subscriptionCode: orderOffer.subscriptionCode ?? null,
      subscriptionDate: draft.day,
      orderLineType: orderOffer.orderLineType ?? 'CREATE',
      offer: { id: draft.offer.id, code: draft.offer.code },
      products: resolvedProducts,
      services: resolvedServices,
    })
  }

  const resolvedPlans: ResolvedPlan[] = []
  for (const selected of plans) {
    const itemTaxes = new Map<number, TaxRate>()
    for (const item of selected.plan.items) {
      itemTaxes.set(item.id, await taxFor(item.articleTaxClassId!, `accounting article ${item.articleCode!}`))
    }
    resolvedPlans.push({ ...selected, taxes: itemTaxes })
  }

  return {
    input,
    timeZone,
    pricesIncludeTax,
    seller: seller!,
    billingAccount: { id: billingAccount!.id, code: billingAccount!.code, countryId: billingAccount!.countryId },
    userAccount: { id: userAccount!.id, code: userAccount!.code },
    currency,
    offers: resolvedOffers,
    plans: resolvedPlans,
  }
}

type SelectedPlan = Omit<ResolvedPlan, 'taxes'>

/**
 * The discount plans of the order (rule 3): every code at order, offer and product level, then the offers'
 * automatic-application plans not already selected for them. Rule 4: ACTIVE or IN_USE; an OFFER plan linked to the
 * offers it discounts; a product plan linked to its product.
 */
async function discountSelection(
  db: Db,
  input: OrderInput,
  drafts: readonly {
    position: number
    offer: OfferRow
    products: { position: number; product: ProductRow }[]
  }[],
  problems: ErrorDetail[],
): Promise<SelectedPlan[]> {
  interface Listed {
    code: string
    field: string
    level: DiscountLevel
    offerPosition: number | null
    productPosition: number | null
  }
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
  const automaticIds = drafts.flatMap((d) => d.offer.discountPlanIds)
  const plans = await discountPlansOf(db, { codes: listed.map((l) => l.code), ids: automaticIds })
  const byCode = new Map(plans.map((p) => [p.code, p]))
  const byId = new Map(plans.map((p) => [p.id, p]))
  const draftOf = (position: number | null) => drafts.find((d) => d.position === position)
  const selected: SelectedPlan[] = []
  for (const entry of listed) {
    const plan = byCode.get(entry.code)
    if (!plan) {
      problems.push({ field: entry.field, message: `no discount plan with code '${entry.code}'` })
      continue
    }
    if (!USABLE_PLAN_STATUSES.includes(plan.status)) {
      problems.push({
        field: entry.field,
        message: `discount plan ${plan.code} is ${plan.status}: an order needs an ACTIVE or IN_USE plan`,
      })
      continue
    }
    if (entry.level === 'PRODUCT') {
      const product = draftOf(entry.offerPosition)?.products.find((p) => p.position === entry.productPosition)
      if (product && !product.product.discountPlanIds.includes(plan.id)) {
        problems.push({
          field: entry.field,
          message: `discount plan ${plan.code} is not linked to product ${product.product.code}`,
        })
        continue
      }
    }
    if (plan.discountPlanType === 'OFFER' && entry.level !== 'PRODUCT') {
      const scoped = entry.level === 'OFFER' ? [draftOf(entry.offerPosition)] : drafts
      const unlinked = scoped.find((d) => d && !d.offer.discountPlanIds.includes(plan.id))
      if (unlinked) {
        problems.push({
          field: entry.field,
          message: `discount plan ${plan.code} is an OFFER plan not linked to offer ${unlinked.offer.code}`,
        })
        continue
      }
    }
    selected.push({
      plan,
      level: entry.level,
      offerPosition: entry.offerPosition,
      productPosition: entry.productPosition,
      automatic: false,
      position: selected.length,
    })
  }
  for (const draft of drafts) {
    for (const planId of draft.offer.discountPlanIds) {
      const plan = byId.get(planId)
      if (!plan?.automaticApplication || !USABLE_PLAN_STATUSES.includes(plan.status)) continue
      const already = selected.some(
        (s) =>
          s.plan.id === plan.id && (s.level === 'ORDER' || (s.level === 'OFFER' && s.offerPosition === draft.position)),
      )
      if (already) continue
      selected.push({
        plan,
        level: 'OFFER',
        offerPosition: draft.position,
        productPosition: null,
        automatic: true,
        position: selected.length,
      })
    }
  }
  return selected
}
