import { codeString, description, newCode, nullableCode } from './catalog.schemas.ts'
import { CHARGE_TYPES, ONE_SHOT_TYPES } from './charge.model.ts'

const fields = {
  description,
  type: { type: 'string', enum: [...CHARGE_TYPES], description: 'RECURRING, USAGE or ONESHOT' },
  oneShotType: {
    type: ['string', 'null'],
    enum: [...ONE_SHOT_TYPES, null],
    description: 'ONESHOT (default SUBSCRIPTION)',
  },
  invoiceSubCategory: { ...codeString, description: 'code of an invoice sub-category' },
  taxClass: { ...codeString, description: 'code of a tax class' },
  billingCalendar: { ...nullableCode, description: 'code of a calendar; required for RECURRING' },
  inputUnitOfMeasure: { ...nullableCode, description: 'USAGE: unit of the usage records' },
  ratingUnitOfMeasure: { ...nullableCode, description: 'USAGE: unit the price is per' },
  filterParam1: { type: ['string', 'null'], maxLength: 255, description: 'USAGE: selects usage records by param1' },
  counterTemplate: { ...nullableCode, description: 'USAGE: code of a counter template giving free units per period' },
  subscriptionProrata: { type: 'boolean', description: 'RECURRING: prorate the first period by days' },
}

export const chargeCreateBody = {
  type: 'object',
  additionalProperties: false,
  required: ['code', 'type'],
  properties: { code: newCode, ...fields },
}

export const chargeUpdateBody = {
  type: 'object',
  additionalProperties: false,
  properties: { ...fields, type: { ...fields.type, description: 'cannot change; accepted when equal' } },
}
