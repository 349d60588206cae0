import { decimalOut, nullableDecimalOut } from '../../kernel/decimal-json.ts'
import { decimalSchema } from '../pricing/index.ts'

const code = { type: 'string', minLength: 1, maxLength: 255 }
const newCode = { ...code, pattern: '^[A-Za-z0-9][A-Za-z0-9_.\\-]*$' }
const codes = { type: 'array', maxItems: 100, items: code, description: 'discount plan codes' }
const object = (properties: Record<string, unknown>, required: string[] = []) => ({
  type: 'object',
  additionalProperties: false,
  required,
  properties,
})

const orderAttribute = object(
  {
    attributeCode: code,
    stringValue: { type: ['string', 'null'], maxLength: 2000 },
    doubleValue: {
      anyOf: [{ type: 'number' }, { type: 'string', maxLength: 100, pattern: '^-?\\d+(\\.\\d+)?$' }, { type: 'null' }],
      description: 'a number, as a JSON number or a decimal string',
    },
    booleanValue: { type: ['boolean', 'null'] },
    dateValue: { type: ['string', 'null'], maxLength: 40 },
  },
  ['attributeCode'],
)

const chargeOverride = object(
  {
    chargeCode: code,
    unitPrice: { ...decimalSchema, description: 'the unit price used instead of the pricing version' },
  },
  ['chargeCode', 'unitPrice'],
)

const orderProduct = object(
  {
    productCode: code,
    productActionType: { type: 'string', enum: ['CREATE'] },
    quantity: { ...decimalSchema, description: 'default 1' },
    productVersion: {
      type: 'integer',
      minimum: 1,
      description: 'default: the latest PUBLISHED version valid at the subscription date',
    },
    orderAttributes: { type: 'array', maxItems: 200, items: orderAttribute },
    discountPlanCodes: codes,
    chargeOverrides: {
      type: 'array',
      maxItems: 100,
      items: chargeOverride,
      description: 'needs the role catalog.pricePlans.manage',
    },
  },
  ['productCode'],
)

const orderOffer = object(
  {
    subscriptionCode: newCode,
    orderLineType: { type: 'string', enum: ['CREATE'] },
    offerTemplateCode: code,
    subscriptionDate: {
      type: 'string',
      maxLength: 40,
      description: 'ISO-8601 date; default today in the tenant time zone',
    },
    discountPlanCodes: codes,
    orderProducts: { type: 'array', maxItems: 500, items: orderProduct },
  },
  ['offerTemplateCode'],
)

/** The order of the catalog document §2.6 (and DECISIONS "Orders"): create and preview take the same body. */
export const orderBody = object(
  {
    code: newCode,
    description: { type: 'string', maxLength: 2000 },
    externalReference: { type: 'string', maxLength: 255 },
    orderType: { type: 'string', enum: ['NEW'] },
    sellerCode: code,
    billingAccountCode: code,
    userAccountCode: code,
    discountPlanCodes: codes,
    orderOffers: { type: 'array', minItems: 1, maxItems: 100, items: orderOffer },
  },
  ['sellerCode', 'billingAccountCode', 'userAccountCode', 'orderOffers'],
)

export const createQuery = object({
  autoValidate: { type: 'boolean', default: false, description: 'validate at once (subscriptions ACTIVE)' },
})

export const codeParams = object({ code }, ['code'])

export const openObject = { type: 'object', additionalProperties: true }

const amount = nullableDecimalOut
const totals = {
  totalOneTime: decimalOut,
  totalRecurring: decimalOut,
  totalTax: decimalOut,
  totalWithTax: decimalOut,
}

/** The preview of §2.7: totals are absent when a line has no amount (usage). */
export const previewResponse = {
  type: 'object',
  required: ['currency', 'offers', 'chargeItems'],
  properties: {
    currency: { type: 'string' },
    offers: {
      type: 'array',
      items: {
        type: 'object',
        required: ['subscriptionCode', 'offerCode', 'lines'],
        properties: {
          subscriptionCode: { type: ['string', 'null'] },
          offerCode: { type: 'string' },
          lines: {
            type: 'array',
            items: {
              type: 'object',
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
          ...totals,
        },
      },
    },
    chargeItems: {
      type: 'array',
      items: {
        type: 'object',
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
    ...totals,
  },
}
