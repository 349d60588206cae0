import { Type, type Static, type TSchema } from 'typebox'
import { decimalOut, nullableDecimalOut, type DecimalJson } from '../../kernel/decimal-json.ts'
import { decimalSchema } from '../pricing/index.ts'
import { describePattern } from '../../kernel/http/validation.ts'
import { CODE_PATTERN } from '../../kernel/resources/resource.model.ts'

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
