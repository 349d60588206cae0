import { Type, type Static, type TSchema } from 'typebox'
import { decimalOut, nullableDecimalOut, type DecimalJson } from '../../kernel/decimal-json.ts'
import { decimalSchema } from '../pricing/index.ts'
import { describePattern } from '../../kernel/http/validation.ts'
import { CODE_PATTERN } from '../../kernel/resources/resource.model.ts'
import type { OrderPreview } from './order-preview.ts'

/*
 * The order body in TypeBox, so handlers read it typed (`OrderInput` is its `Static`). Each schema writes the same
 * JSON Schema as before the conversion: `oneOf` and `nullable` keep `enum` and `type: [..., 'null']` as they were.
 */
const code = Type.String({ minLength: 1, maxLength: 255 })
const newCode = Type.String({ minLength: 1, maxLength: 255, pattern: CODE_PATTERN })
const codes = Type.Array(code, { maxItems: 100, description: 'discount plan codes' })
const object = <P extends Record<string, TSchema>>(properties: P) =>
  Type.Object(properties, { additionalProperties: false })
const oneOf = <T extends string>(value: T) => Type.Unsafe<T>({ type: 'string', enum: [value] })
const nullable = <T>(type: string, options: Record<string, unknown> = {}) =>
  Type.Unsafe<T | null>({ type: [type, 'null'], ...options })
const decimal = (description: string) => Type.Unsafe<number | string>({ ...decimalSchema, description })

/** A numeric attribute value sent as a string: digits, an optional minus and decimals. */
const NUMBER_STRING = '^-?\\d+(\\.\\d+)?$'
describePattern(
  NUMBER_STRING,
  'expected a number: a JSON number, or a string of digits with an optional minus and decimals',
)

const orderAttribute = object({
  attributeCode: code,
  stringValue: Type.Optional(nullable<string>('string', { maxLength: 2000 })),
  doubleValue: Type.Optional(
    Type.Union([Type.Number(), Type.String({ maxLength: 100, pattern: NUMBER_STRING }), Type.Null()], {
      description: 'a number, as a JSON number or a decimal string',
    }),
  ),
  booleanValue: Type.Optional(nullable<boolean>('boolean')),
  dateValue: Type.Optional(nullable<string>('string', { maxLength: 40 })),
})

const chargeOverride = object({
  chargeCode: code,
  unitPrice: decimal('the unit price used instead of the pricing version'),
})

const orderProduct = object({
  productCode: code,
  productActionType: Type.Optional(oneOf('CREATE')),
  quantity: Type.Optional(decimal('default 1')),
  productVersion: Type.Optional(
    Type.Integer({ minimum: 1, description: 'default: the latest PUBLISHED version valid at the subscription date' }),
  ),
  orderAttributes: Type.Optional(Type.Array(orderAttribute, { maxItems: 200 })),
  discountPlanCodes: Type.Optional(codes),
  chargeOverrides: Type.Optional(
    Type.Array(chargeOverride, { maxItems: 100, description: 'needs the role catalog.pricePlans.manage' }),
  ),
})

const orderOffer = object({
  subscriptionCode: Type.Optional(newCode),
  orderLineType: Type.Optional(oneOf('CREATE')),
  offerTemplateCode: code,
  subscriptionDate: Type.Optional(
    Type.String({ maxLength: 40, description: 'ISO-8601 date; default today in the tenant time zone' }),
  ),
  discountPlanCodes: Type.Optional(codes),
  orderProducts: Type.Optional(Type.Array(orderProduct, { maxItems: 500 })),
})

/**
 * An order: seller, billing and user account, offers with their products, attributes, quantities and discount plans.
 * Create and preview take the same body.
 */
export const orderBody = object({
  code: Type.Optional(newCode),
  description: Type.Optional(Type.String({ maxLength: 2000 })),
  externalReference: Type.Optional(Type.String({ maxLength: 255 })),
  orderType: Type.Optional(oneOf('NEW')),
  sellerCode: code,
  billingAccountCode: code,
  userAccountCode: code,
  discountPlanCodes: Type.Optional(codes),
  orderOffers: Type.Array(orderOffer, { minItems: 1, maxItems: 100 }),
})

export type OrderAttributeInput = Static<typeof orderAttribute>
export type ChargeOverrideInput = Static<typeof chargeOverride>
export type OrderProductInput = Static<typeof orderProduct>
export type OrderOfferInput = Static<typeof orderOffer>
/** The body of `POST /api/v1/orders` and of the preview. */
export type OrderInput = Static<typeof orderBody>

export const createQuery = object({
  autoValidate: Type.Optional(Type.Boolean({ default: false, description: 'validate at once (subscriptions ACTIVE)' })),
})

/** A decimal echoed from the request: written from its text (`DecimalJson`), typed as the handler holds it. */
const echoedDecimal = Type.Unsafe<DecimalJson | number | string>(decimalOut)

const echoedAttribute = object({
  attributeCode: Type.String(),
  stringValue: Type.Optional(nullable<string>('string')),
  doubleValue: Type.Optional(Type.Unsafe<DecimalJson | number | string | null>(nullableDecimalOut)),
  booleanValue: Type.Optional(nullable<boolean>('boolean')),
  dateValue: Type.Optional(nullable<string>('string')),
})

const echoedProduct = object({
  productCode: Type.String(),
  productActionType: Type.Optional(oneOf('CREATE')),
  quantity: Type.Optional(echoedDecimal),
  productVersion: Type.Optional(Type.Integer()),
  orderAttributes: Type.Optional(Type.Array(echoedAttribute)),
  discountPlanCodes: Type.Optional(Type.Array(Type.String())),
  chargeOverrides: Type.Optional(Type.Array(object({ chargeCode: Type.String(), unitPrice: echoedDecimal }))),
})

const echoedOffer = object({
  subscriptionCode: Type.String({ description: 'as sent, else `<order code>-<n>`' }),
  orderLineType: Type.Optional(oneOf('CREATE')),
  offerTemplateCode: Type.String(),
  subscriptionDate: Type.String({ description: 'the date the offer was rated at (ISO-8601), fixed at creation' }),
  discountPlanCodes: Type.Optional(Type.Array(Type.String())),
  orderProducts: Type.Optional(Type.Array(echoedProduct)),
  subscription: object({
    code: nullable<string>('string'),
    status: nullable<string>('string', { description: '`CREATED` while the order is a draft, then `ACTIVE`' }),
  }),
})

/**
 * An order as answered by creation, validation and reading (`orderWire`): the request echoed as kept (optional fields
 * only when sent; subscription codes and dates always, as creation fixes them), with id, status and each offer's
 * subscription. Decimals are written from the text kept.
 */
export const Order = Type.Object(
  {
    id: Type.Integer(),
    code: Type.String(),
    description: Type.Optional(Type.String()),
    externalReference: Type.Optional(Type.String()),
    orderType: Type.Optional(oneOf('NEW')),
    sellerCode: Type.String(),
    billingAccountCode: Type.String(),
    userAccountCode: Type.String(),
    discountPlanCodes: Type.Optional(Type.Array(Type.String())),
    status: Type.String({ description: '`DRAFT` or `VALIDATED`' }),
    orderOffers: Type.Array(echoedOffer),
  },
  { $id: 'Order', title: 'Order', additionalProperties: false },
)

const amount = nullableDecimalOut
const totals = {
  totalOneTime: decimalOut,
  totalRecurring: decimalOut,
  totalTax: decimalOut,
  totalWithTax: decimalOut,
}

const amounts = {
  type: 'object',
  required: ['amountWithoutTax', 'amountTax', 'amountWithTax'],
  properties: { amountWithoutTax: decimalOut, amountTax: decimalOut, amountWithTax: decimalOut },
}

/** What an offer or the order costs, in every preview: written by `previewOf` (order-preview.ts). */
const summary = {
  type: 'object',
  description:
    'Always present, usage lines or not: one-time amounts, recurring amounts per first service period, usage ' +
    'lines priced per unit, and `known`: the amounts known at order time (one-time and first periods), net of ' +
    'discounts, without tax, tax and with tax.',
  required: ['oneTime', 'recurring', 'usage', 'known'],
  properties: {
    oneTime: amounts,
    recurring: {
      type: 'array',
      items: {
        type: 'object',
        required: ['periodStart', 'periodEnd', 'every', 'prorated', 'amountWithoutTax', 'amountTax', 'amountWithTax'],
        properties: {
          periodStart: { type: 'string', format: 'date', description: 'first service period start (inclusive)' },
          periodEnd: { type: 'string', format: 'date', description: 'first service period end (exclusive)' },
          every: {
            type: ['object', 'null'],
            description: "the calendar's period, null for a calendar of listed days",
            required: ['unit', 'length'],
            properties: { unit: { type: 'string', description: '`DAY` or `MONTH`' }, length: { type: 'integer' } },
          },
          prorated: { type: 'boolean', description: 'the first period is a share of a calendar period' },
          ...amounts.properties,
        },
      },
    },
    usage: {
      type: 'array',
      items: {
        type: 'object',
        required: [
          'productCode',
          'chargeCode',
          'label',
          'unit',
          'unitPriceWithoutTax',
          'unitPriceWithTax',
          'pricingModel',
        ],
        properties: {
          productCode: { type: ['string', 'null'] },
          chargeCode: { type: 'string' },
          label: { type: 'string' },
          unit: { type: ['string', 'null'], description: 'the unit of measure rated' },
          unitPriceWithoutTax: {
            ...amount,
            description: 'the price of one unit, before discounts; null when only a usage event can price it',
          },
          unitPriceWithTax: amount,
          pricingModel: {
            type: ['string', 'null'],
            description: 'FLAT, MATRIX or FORMULA (a formula may vary with the volume)',
          },
        },
      },
    },
    known: amounts,
  },
}

/**
 * An order's preview: rated lines per offer and their discounts; totals are absent when a line has no amount (usage).
 * Written by `previewOf`.
 */
export const previewResponse = Type.Unsafe<OrderPreview>({
  type: 'object',
  required: ['currency', 'offers', 'chargeItems', 'summary'],
  properties: {
    currency: { type: 'string' },
    offers: {
      type: 'array',
      items: {
        type: 'object',
        required: ['subscriptionCode', 'offerCode', 'lines', 'summary'],
        properties: {
          subscriptionCode: { type: ['string', 'null'] },
          offerCode: { type: 'string' },
          lines: {
            type: 'array',
            items: {
              type: 'object',
              // The service period only on a line that has one (a recurring charge's).
              required: [
                'productCode',
                'chargeCode',
                'chargeType',
                'label',
                'amountWithoutTax',
                'amountWithTax',
                'overridden',
                'discountPlanCode',
              ],
              properties: {
                productCode: { type: ['string', 'null'] },
                chargeCode: { type: 'string' },
                chargeType: { type: 'string' },
                label: { type: 'string' },
                amountWithoutTax: amount,
                amountWithTax: amount,
                overridden: { type: 'boolean' },
                discountPlanCode: { type: ['string', 'null'] },
                servicePeriodStart: { type: 'integer', description: 'epoch milliseconds' },
                servicePeriodEnd: { type: 'integer', description: 'epoch milliseconds (exclusive)' },
              },
            },
          },
          summary,
          ...totals,
        },
      },
    },
    chargeItems: {
      type: 'array',
      items: {
        type: 'object',
        required: [
          'subscriptionCode',
          'productCode',
          'chargeCode',
          'chargeType',
          'quantity',
          'unitPrice',
          'pricingVersion',
        ],
        properties: {
          subscriptionCode: { type: ['string', 'null'] },
          productCode: { type: ['string', 'null'] },
          chargeCode: { type: 'string' },
          chargeType: { type: 'string' },
          quantity: decimalOut,
          unitPrice: amount,
          pricingVersion: { type: ['integer', 'null'] },
        },
      },
    },
    summary,
    ...totals,
  },
})
