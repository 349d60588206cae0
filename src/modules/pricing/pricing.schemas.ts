import { decimalOut } from '../../kernel/decimal-json.ts'
import { decimalSchema } from './decimal-input.ts'
import { MATRIX_COLUMN_TYPES } from './models/index.ts'

export const codeString = { type: 'string', minLength: 1, maxLength: 255 }
export const codeParams = { type: 'object', required: ['code'], properties: { code: codeString } }

const nullableDecimal = { anyOf: [...decimalSchema.anyOf, { type: 'null' }], description: decimalSchema.description }

const matrixColumn = {
  type: 'object',
  additionalProperties: false,
  required: ['code', 'type', 'attributeCode'],
  properties: {
    code: codeString,
    type: { type: 'string', enum: [...MATRIX_COLUMN_TYPES] },
    position: { type: 'integer', minimum: 0, maximum: 1000 },
    attributeCode: { ...codeString, description: 'the attribute backing the dimension' },
    isRange: { type: 'boolean', description: 'optional; must agree with the type (Range_Numeric, Range_Date)' },
    allowedValues: {
      type: 'array',
      maxItems: 1000,
      items: { type: 'string', maxLength: 255 },
      description: 'optional; filled from the attribute, each must be one of its allowed values',
    },
  },
}

const matrixCell = {
  type: 'object',
  additionalProperties: false,
  required: ['dimensionCode'],
  properties: {
    dimensionCode: codeString,
    stringValue: { type: ['string', 'null'], maxLength: 255, description: 'exact value; empty or absent = any value' },
    fromValue: {
      anyOf: [{ type: 'number' }, { type: 'string', maxLength: 40 }, { type: 'null' }],
      description: 'range columns: inclusive lower bound (absent = open)',
    },
    toValue: {
      anyOf: [{ type: 'number' }, { type: 'string', maxLength: 40 }, { type: 'null' }],
      description: 'range columns: exclusive upper bound (absent = open)',
    },
  },
}

const matrixRow = {
  type: 'object',
  additionalProperties: false,
  required: ['price'],
  properties: {
    price: decimalSchema,
    priority: { type: 'integer', minimum: 0, maximum: 1_000_000, description: 'default: 0-based row order' },
    description: { type: ['string', 'null'], maxLength: 2000 },
    values: { type: 'array', maxItems: 20, items: matrixCell },
  },
}

export const draftBody = {
  type: 'object',
  additionalProperties: false,
  required: ['pricingModel', 'currency'],
  properties: {
    pricingModel: { type: 'string', enum: ['FLAT', 'MATRIX', 'FORMULA'] },
    currency: { ...codeString, description: 'code of a trading currency' },
    validFrom: {
      type: ['string', 'null'],
      format: 'date',
      description: 'start of validity (yyyy-MM-dd); may be absent only on a charge’s first version',
    },
    price: { ...nullableDecimal, description: 'FLAT: the unit price (absent or 0 otherwise)' },
    price_fx: {
      type: 'string',
      minLength: 1,
      maxLength: 10_000,
      description: 'FORMULA: #{...} yielding the unit price',
    },
    columns: { type: 'array', maxItems: 20, items: matrixColumn },
    rows: { type: 'array', maxItems: 2000, items: matrixRow },
  },
}

/** Publish takes an empty object (or no body). */
export const publishBody = { type: ['object', 'null'], additionalProperties: false, properties: {} }

const versionSchema = {
  type: 'object',
  additionalProperties: true,
  properties: {
    version: { type: 'integer' },
    status: { type: 'string', enum: ['DRAFT', 'PUBLISHED'] },
    pricingModel: { type: 'string' },
    currency: { type: 'string' },
    validFrom: { type: ['string', 'null'], description: 'yyyy-MM-dd' },
    validTo: { type: ['string', 'null'], description: 'exclusive end (yyyy-MM-dd); null while open-ended' },
    price: decimalOut,
    price_fx: { type: 'string' },
    columns: { type: 'array', items: { type: 'object', additionalProperties: true } },
    rows: { type: 'array', items: { type: 'object', additionalProperties: true } },
  },
}

export const versionsResponse = {
  type: 'object',
  additionalProperties: true,
  properties: { pricingVersions: { type: 'array', items: versionSchema } },
}

export const publishResponse = {
  ...versionSchema,
  properties: {
    ...versionSchema.properties,
    chargeCode: { type: 'string' },
    chargeStatus: { type: 'string' },
    pricingVersions: versionsResponse.properties.pricingVersions,
  },
}

export const evaluateBody = {
  type: ['object', 'null'],
  additionalProperties: false,
  properties: {
    quantity: { ...decimalSchema, description: 'the quantity rated (default 1)' },
    attributes: {
      type: 'object',
      maxProperties: 100,
      additionalProperties: { type: 'string', maxLength: 255 },
      description: 'attribute values by attribute code',
    },
    date: { type: 'string', format: 'date', description: 'the day whose published version prices (default: today)' },
    version: {
      type: 'integer',
      minimum: 1,
      maximum: 2147483647,
      description: 'a given version instead (draft included)',
    },
  },
}

export const evaluateResponse = {
  type: 'object',
  additionalProperties: true,
  properties: {
    chargeCode: { type: 'string' },
    version: { type: 'integer' },
    pricingModel: { type: 'string' },
    currency: { type: 'string' },
    quantity: decimalOut,
    unitPrice: decimalOut,
    explanation: { type: 'string' },
  },
}
