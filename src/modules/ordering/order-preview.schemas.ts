import { Type } from 'typebox'
import { nullableDecimalOut, decimalOut } from '../../kernel/decimal-json.ts'
import type { OrderPreview } from './order-preview.ts'

const amount = nullableDecimalOut
const totals = {
  totalOneTime: decimalOut,
  totalRecurring: decimalOut,
  totalTax: decimalOut,
  totalWithTax: decimalOut,
}

/**
 * An order's preview: rated lines per offer and their discounts; totals are absent when a line has no amount (usage).
 * Written by `previewOf`.
 */
export const previewResponse = Type.Unsafe<OrderPreview>({
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
    ...totals,
  },
})
