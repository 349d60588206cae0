/**
 * The offer and product lines of an order, checked against the catalog: which offers and products it names, on which
 * day, in which version and quantity (`offerLines`); then what each product line carries: its attribute values, its
 * price overrides and the charges of its version, and the charges of each mandatory service (`chargedOffers`). Every
 * bad reference is a problem naming the field as the client wrote it; a line with a problem is left out, and the
 * order fails once every step has added its problems.
 */
import type { Decimal } from 'decimal.js'
import { inTurn } from '../../kernel/db/in-turn.ts'
import type { ErrorDetail } from '../../kernel/errors.ts'
import { entryOf } from '../../kernel/invariant.ts'
import { formatDecimal, money } from '../../kernel/money.ts'
import { dayIn, readDay } from '../../kernel/time-zone.ts'
import type { SellerRow } from '../accounts/index.ts'
import {
  isOrderableStatus,
  versionValidOn,
  type ChargeRow,
  type OfferRow,
  type ProductRow,
  type ProductVersionRow,
  type VersionContent,
} from '../catalog/index.ts'
import { readDecimal } from '../pricing/index.ts'
import type { CatalogLookups } from './cached-catalog.ts'
import {
  attributeValue,
  attributeValueProblem,
  type OrderInput,
  type OrderOfferInput,
  type OrderProductInput,
} from './order.model.ts'

export const offerField = (i: number) => `orderOffers[${i}]`
export const productField = (i: number, j: number) => `orderOffers[${i}].orderProducts[${j}]`

/** An ordered product found in its offer, with the version and quantity it is ordered in. */
export interface ProductLine {
  readonly position: number
  /** Where the product stands in the request (`orderOffers[i].orderProducts[j]`), for problems. */
  readonly field: string
  readonly input: OrderProductInput
  readonly product: ProductRow
  readonly version: ProductVersionRow
  readonly quantity: Decimal
}

/** An ordered offer found in the catalog, with its subscription day and the product lines that passed their checks. */
export interface OfferLine {
  readonly position: number
  readonly field: string
  readonly input: OrderOfferInput
  readonly offer: OfferRow
  /** The subscription day: the one sent, else today in the tenant's time zone. */
  readonly day: string
  readonly products: readonly ProductLine[]
}

/** What the offer checks need beyond the request: today and the zone to read days in, the order's seller if found. */
export interface LineContext {
  readonly today: string
  readonly timeZone: string
  readonly seller: SellerRow | undefined
}

/**
 * The offers and products of the order (catalog rules 1 and 6): each offer exists, is orderable (ACTIVE or LAUNCHED),
 * is sold by the order's seller when it names sellers, and is valid on the subscription day; a subscription code is
 * ordered once; each product is a component of its offer, in the quantities the offer allows, in a PUBLISHED version
 * (the one asked, or the one valid on the day); every mandatory component is ordered.
 */
export async function offerLines(
  catalog: CatalogLookups,
  input: OrderInput,
  context: LineContext,
  problems: ErrorDetail[],
): Promise<OfferLine[]> {
  const [offers, products] = await inTurn(
    () => catalog.offersByCode([...new Set(input.orderOffers.map((o) => o.offerTemplateCode))]),
    () =>
      catalog.productsByCode([
        ...new Set(input.orderOffers.flatMap((o) => (o.orderProducts ?? []).map((p) => p.productCode))),
      ]),
  )
  const lines: OfferLine[] = []
  const subscriptionCodes = new Set<string>()
  for (const [i, orderOffer] of input.orderOffers.entries()) {
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
    const day =
      orderOffer.subscriptionDate === undefined ? context.today : readDay(orderOffer.subscriptionDate, context.timeZone)
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
    problems.push(...offerProblems(offer, field, day, context))
    const productLines: ProductLine[] = []
    const ordered = new Set<string>()
    for (const [j, orderProduct] of (orderOffer.orderProducts ?? []).entries()) {
      ordered.add(orderProduct.productCode)
      const line = productLine(orderProduct, productField(i, j), j, { offer, products, day }, problems)
      if (line) productLines.push(line)
    }
    for (const component of offer.components) {
      if (component.mandatory && !ordered.has(component.productCode)) {
        problems.push({
          field: `${field}.orderProducts`,
          message: `product ${component.productCode} is mandatory in offer ${offer.code}`,
        })
      }
    }
    lines.push({ position: i, field, input: orderOffer, offer, day: day ?? context.today, products: productLines })
  }
  return lines
}

/** Why an offer cannot be ordered here: its status, its sellers, its validity on the day (when the day was read). */
function offerProblems(offer: OfferRow, field: string, day: string | undefined, context: LineContext): ErrorDetail[] {
  const problems: ErrorDetail[] = []
  if (!isOrderableStatus(offer.status)) {
    problems.push({
      field: `${field}.offerTemplateCode`,
      message: `offer ${offer.code} is ${offer.status}: orders need an ACTIVE or LAUNCHED offer`,
    })
  }
  const { seller, timeZone } = context
  if (seller && offer.sellerIds.length > 0 && !offer.sellerIds.includes(seller.id)) {
    problems.push({
      field: `${field}.offerTemplateCode`,
      message: `offer ${offer.code} is not sold by seller ${seller.code}`,
    })
  }
  if (day !== undefined) {
    // Validity is an instant range; the order compares days in the tenant's zone, the end exclusive.
    const from = offer.validFrom ? dayIn(offer.validFrom, timeZone) : null
    const to = offer.validTo ? dayIn(offer.validTo, timeZone) : null
    if ((from !== null && day < from) || (to !== null && day >= to)) {
      problems.push({ field: `${field}.subscriptionDate`, message: `offer ${offer.code} is not valid on ${day}` })
    }
  }
  return problems
}

/** One ordered product of an offer, or undefined (with its problems added) when it cannot be ordered so. */
function productLine(
  orderProduct: OrderProductInput,
  field: string,
  position: number,
  found: { offer: OfferRow; products: ReadonlyMap<string, ProductRow>; day: string | undefined },
  problems: ErrorDetail[],
): ProductLine | undefined {
  const { offer, day } = found
  const product = found.products.get(orderProduct.productCode)
  if (!product) {
    problems.push({ field: `${field}.productCode`, message: `no product with code '${orderProduct.productCode}'` })
    return undefined
  }
  const component = offer.components.find((c) => c.productId === product.id)
  if (!component) {
    problems.push({
      field: `${field}.productCode`,
      message: `product ${product.code} is not part of offer ${offer.code}`,
    })
    return undefined
  }
  const quantity = readDecimal(orderProduct.quantity ?? 1, `${field}.quantity`, problems, { minExclusive: 0 })
  if (
    quantity &&
    ((component.minQuantity !== null && quantity.lt(component.minQuantity)) ||
      (component.maxQuantity !== null && quantity.gt(component.maxQuantity)))
  ) {
    problems.push({
      field: `${field}.quantity`,
      message: `offer ${offer.code} takes product ${product.code} in quantities from ${formatDecimal(component.minQuantity ?? 0)} to ${component.maxQuantity === null ? 'any' : formatDecimal(component.maxQuantity)}`,
    })
  }
  let version: ProductVersionRow | undefined
  if (orderProduct.productVersion !== undefined) {
    version = product.versions.find((v) => v.version === orderProduct.productVersion)
    if (!version) {
      problems.push({
        field: `${field}.productVersion`,
        message: `product ${product.code} has no version ${orderProduct.productVersion}`,
      })
    } else if (version.status !== 'PUBLISHED') {
      problems.push({
        field: `${field}.productVersion`,
        message: `version ${version.version} of product ${product.code} is ${version.status}, not PUBLISHED`,
      })
      version = undefined
    }
  } else if (day !== undefined) {
    version = versionValidOn(product.versions, day)
    if (!version) {
      problems.push({
        field: `${field}.productVersion`,
        message: `product ${product.code} has no PUBLISHED version valid on ${day}`,
      })
    }
  }
  return version && quantity ? { position, field, input: orderProduct, product, version, quantity } : undefined
}

/** A charge an order line subscribes to, with the quantity, attribute values and override rating takes. */
export interface ChargeLine {
  readonly charge: ChargeRow
  readonly quantity: Decimal
  readonly attributes: Readonly<Record<string, string>>
  readonly override: Decimal | null
  /** The subscription day of the offer: the day the price is read on and the first period starts. */
  readonly day: string
}

/** A product line with the attribute values and overrides sent for it and the charges of its version. */
export interface ChargedProduct {
  readonly line: ProductLine
  readonly attributes: Readonly<Record<string, string>>
  /** Unit prices by charge code, in the order sent. */
  readonly overrides: ReadonlyMap<string, Decimal>
  readonly charges: readonly ChargeLine[]
}

/** A mandatory service of an offer (legacy services), with its charges, each in quantity 1. */
export interface ChargedService {
  readonly service: OfferRow['services'][number]
  readonly charges: readonly ChargeLine[]
}

export interface ChargedOffer {
  readonly line: OfferLine
  readonly products: readonly ChargedProduct[]
  readonly services: readonly ChargedService[]
}

/**
 * The charges of the order's lines (catalog rule 4: a charge is orderable once ACTIVE, never a silent zero): the
 * charges linked to each product version, with the attribute values and overrides sent for it, and those of each
 * mandatory service of each offer.
 */
export async function chargedOffers(
  catalog: CatalogLookups,
  lines: readonly OfferLine[],
  problems: ErrorDetail[],
): Promise<ChargedOffer[]> {
  const mandatory = (line: OfferLine) => line.offer.services.filter((s) => s.mandatory)
  const [contents, chargesOfServices] = await inTurn(
    () => catalog.versionContents(lines.flatMap((l) => l.products.map((p) => p.version.id))),
    () => catalog.serviceCharges(lines.flatMap((l) => mandatory(l).map((s) => s.id))),
  )
  const charges = await catalog.chargesById([
    ...[...contents.values()].flatMap((c) => c.chargeIds),
    ...[...chargesOfServices.values()].flat(),
  ])
  const chargeOf = (id: number) => entryOf(charges, id, 'charge')
  return lines.map((line) => ({
    line,
    products: line.products.map((product) =>
      chargedProduct(product, entryOf(contents, product.version.id, 'contents of product version'), {
        chargeOf,
        day: line.day,
        problems,
      }),
    ),
    services: mandatory(line).map((service) => {
      const serviceCharges = entryOf(chargesOfServices, service.id, 'charges of service').map(chargeOf)
      for (const charge of serviceCharges) {
        const problem = chargeProblem(charge, `service ${service.code}`)
        if (problem) problems.push({ field: `${line.field}.offerTemplateCode`, message: problem })
      }
      return {
        service,
        charges: serviceCharges.map((charge) => ({
          charge,
          quantity: money(1),
          attributes: {},
          override: null,
          day: line.day,
        })),
      }
    }),
  }))
}

/** A charge is orderable once ACTIVE (its first pricing version published): never a silent zero. */
function chargeProblem(charge: ChargeRow, owner: string): string | undefined {
  return charge.status === 'ACTIVE'
    ? undefined
    : `charge ${charge.code} of ${owner} is ${charge.status}: only ACTIVE charges can be ordered`
}

function chargedProduct(
  line: ProductLine,
  content: VersionContent,
  context: { chargeOf: (id: number) => ChargeRow; day: string; problems: ErrorDetail[] },
): ChargedProduct {
  const { problems } = context
  const attributes = orderAttributes(line, content, problems)
  const charges = content.chargeIds.map(context.chargeOf)
  const overrides = chargeOverrides(line, charges, problems)
  for (const charge of charges) {
    const problem = chargeProblem(charge, `product ${line.product.code}`)
    if (problem) problems.push({ field: `${line.field}.productCode`, message: problem })
  }
  return {
    line,
    attributes,
    overrides,
    charges: charges.map((charge) => ({
      charge,
      quantity: line.quantity,
      attributes,
      override: overrides.get(charge.code) ?? null,
      day: context.day,
    })),
  }
}

/**
 * The attribute values sent for a product: each an enabled attribute of its version, given once, of the attribute's
 * type and among its allowed values. A value sent empty (all typed values null) is left out.
 */
function orderAttributes(line: ProductLine, content: VersionContent, problems: ErrorDetail[]): Record<string, string> {
  const attributes: Record<string, string> = {}
  for (const [k, sent] of (line.input.orderAttributes ?? []).entries()) {
    const field = `${line.field}.orderAttributes[${k}]`
    const attribute = content.attributes.find((a) => a.code === sent.attributeCode)
    if (!attribute) {
      problems.push({
        field: `${field}.attributeCode`,
        message: `attribute ${sent.attributeCode} is not an attribute of version ${line.version.version} of product ${line.product.code}`,
      })
      continue
    }
    if (Object.hasOwn(attributes, attribute.code)) {
      problems.push({ field: `${field}.attributeCode`, message: `attribute ${attribute.code} is given twice` })
      continue
    }
    if (attribute.disabled) {
      problems.push({ field: `${field}.attributeCode`, message: `attribute ${attribute.code} is disabled` })
      continue
    }
    const value = attributeValue(sent)
    if (value === null || value === undefined) continue
    const problem = attributeValueProblem(attribute, value)
    if (problem) problems.push({ field, message: `attribute ${attribute.code}: ${problem}, not '${value}'` })
    else attributes[attribute.code] = value
  }
  return attributes
}

/** The unit prices sent for a product's charges: each a charge of its version, overridden once. */
function chargeOverrides(
  line: ProductLine,
  charges: readonly ChargeRow[],
  problems: ErrorDetail[],
): Map<string, Decimal> {
  const overrides = new Map<string, Decimal>()
  for (const [k, override] of (line.input.chargeOverrides ?? []).entries()) {
    const field = `${line.field}.chargeOverrides[${k}]`
    if (!charges.some((c) => c.code === override.chargeCode)) {
      problems.push({
        field: `${field}.chargeCode`,
        message: `charge ${override.chargeCode} is not a charge of version ${line.version.version} of product ${line.product.code}`,
      })
      continue
    }
    if (overrides.has(override.chargeCode)) {
      problems.push({ field: `${field}.chargeCode`, message: `charge ${override.chargeCode} is overridden twice` })
      continue
    }
    const unitPrice = readDecimal(override.unitPrice, `${field}.unitPrice`, problems)
    if (unitPrice) overrides.set(override.chargeCode, unitPrice)
  }
  return overrides
}
