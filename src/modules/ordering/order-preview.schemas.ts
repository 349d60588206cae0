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
