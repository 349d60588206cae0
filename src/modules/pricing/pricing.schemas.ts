import { Type } from '@fastify/type-provider-typebox'
import type { DecimalJson } from '../../kernel/decimal-json.ts'
import { decimalOut } from '../../kernel/decimal-json.ts'
import { decimalSchema } from './decimal-input.ts'
import { MATRIX_COLUMN_TYPES, type MatrixColumnType } from './models/index.ts'

const Code = Type.String({ minLength: 1, maxLength: 255 })
const DecimalIn = (description: string) => Type.Unsafe<number | string>({ ...decimalSchema, description })
const DecimalOut = Type.Unsafe<DecimalJson>(decimalOut)
const NullableString = (description?: string) =>
  Type.Unsafe<string | null>({ type: ['string', 'null'], ...(description ? { description } : {}) })
const PRICING_MODELS = ['FLAT', 'MATRIX', 'FORMULA'] as const
const PricingModel = Type.Unsafe<(typeof PRICING_MODELS)[number]>({ type: 'string', enum: [...PRICING_MODELS] })
const PricingModelOut = Type.Unsafe<string>({ type: 'string', enum: [...PRICING_MODELS] })
const ColumnType = Type.Unsafe<MatrixColumnType>({ type: 'string', enum: [...MATRIX_COLUMN_TYPES] })

const Bound = (description: string) =>
  Type.Unsafe<number | string | null>({
    anyOf: [{ type: 'number' }, { type: 'string', maxLength: 40 }, { type: 'null' }],
    description,
  })

const MatrixColumnInput = Type.Object(
  {
    code: Code,
    type: ColumnType,
    position: Type.Optional(Type.Integer({ minimum: 0, maximum: 1000 })),
    attributeCode: Type.String({ ...Code, description: 'the attribute backing the dimension' }),
    isRange: Type.Optional(
      Type.Boolean({ description: 'optional; must agree with the type (Range_Numeric, Range_Date)' }),
    ),
    allowedValues: Type.Optional(
      Type.Array(Type.String({ maxLength: 255 }), {
        maxItems: 1000,
        description: 'optional; filled from the attribute, each must be one of its allowed values',
      }),
    ),
  },
  { additionalProperties: false },
)

const MatrixCellInput = Type.Object(
  {
    dimensionCode: Code,
    stringValue: Type.Optional(
      Type.Unsafe<string | null>({
        type: ['string', 'null'],
        maxLength: 255,
        description: 'exact value; empty or absent = any value',
      }),
    ),
    fromValue: Type.Optional(Bound('range columns: inclusive lower bound (absent = open)')),
    toValue: Type.Optional(Bound('range columns: exclusive upper bound (absent = open)')),
  },
  { additionalProperties: false },
)

const MatrixRowInput = Type.Object(
  {
    price: DecimalIn('the unit price of the row'),
    priority: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 1_000_000, description: 'default: 0-based row order' }),
    ),
    description: Type.Optional(Type.Unsafe<string | null>({ type: ['string', 'null'], maxLength: 2000 })),
    values: Type.Optional(Type.Array(MatrixCellInput, { maxItems: 20 })),
  },
  { additionalProperties: false },
)

/** The whole draft of a charge's pricing: the fields of its model (`pricingModel` and `currency` always). */
export const PricingDraftInput = Type.Object(
  {
    pricingModel: PricingModel,
    currency: Type.String({ ...Code, description: 'code of a trading currency' }),
    validFrom: Type.Optional(
      Type.Unsafe<string | null>({
        type: ['string', 'null'],
        format: 'date',
        description: 'start of validity (yyyy-MM-dd); may be absent only on a charge’s first version',
      }),
    ),
    price: Type.Optional(
      Type.Unsafe<number | string | null>({
        anyOf: [...decimalSchema.anyOf, { type: 'null' }],
        description: `FLAT: the unit price (absent or 0 otherwise); ${decimalSchema.description}`,
      }),
    ),
    price_fx: Type.Optional(
      Type.String({ minLength: 1, maxLength: 10_000, description: 'FORMULA: #{...} yielding the unit price' }),
    ),
    columns: Type.Optional(Type.Array(MatrixColumnInput, { maxItems: 20, description: 'MATRIX: the dimensions' })),
    rows: Type.Optional(Type.Array(MatrixRowInput, { maxItems: 2000, description: 'MATRIX: the price lines' })),
  },
  { $id: 'PricingDraftInput', title: 'PricingDraftInput', additionalProperties: false },
)

/** Publish takes an empty object (or no body). */
export const PublishBody = Type.Unsafe<Record<string, never> | null>({
  type: ['object', 'null'],
  additionalProperties: false,
  properties: {},
})

export const PriceEvaluationInput = Type.Unsafe<{
  quantity?: number | string
  attributes?: Record<string, string>
  date?: string
  version?: number
} | null>({
  ...Type.Object(
    {
      quantity: Type.Optional(DecimalIn('the quantity rated (default 1)')),
      attributes: Type.Optional(
        Type.Record(Type.String(), Type.String({ maxLength: 255 }), {
          maxProperties: 100,
          description: 'attribute values by attribute code',
        }),
      ),
      date: Type.Optional(
        Type.String({ format: 'date', description: 'the day whose published version prices (default: today)' }),
      ),
      version: Type.Optional(
        Type.Integer({ minimum: 1, maximum: 2147483647, description: 'a given version instead (draft included)' }),
      ),
    },
    { additionalProperties: false },
  ),
  type: ['object', 'null'],
  $id: 'PriceEvaluationInput',
  title: 'PriceEvaluationInput',
})

const PricingMatrixColumn = Type.Object(
  {
    code: Type.String(),
    type: ColumnType,
    position: Type.Integer(),
    attributeCode: Type.String(),
    label: Type.String({ description: 'the attribute’s description, else its code' }),
    isRange: Type.Boolean(),
    allowedValues: Type.Array(Type.String()),
  },
  { $id: 'PricingMatrixColumn', title: 'PricingMatrixColumn', additionalProperties: false },
)

/** A bound of a range cell, written as stored: a decimal (Range_Numeric), a day (Range_Date) or null (open). */
const BoundOut = (description: string) =>
  Type.Unsafe<DecimalJson | string | null>({
    description: `${description}: a number (Range_Numeric), a yyyy-MM-dd day (Range_Date) or null (open)`,
  })

const PricingMatrixCell = Type.Object(
  {
    dimensionCode: Type.String(),
    stringValue: Type.Optional(Type.String({ description: 'columns other than ranges: the value, empty = any' })),
    fromValue: Type.Optional(BoundOut('range columns: inclusive lower bound')),
    toValue: Type.Optional(BoundOut('range columns: exclusive upper bound')),
  },
  { $id: 'PricingMatrixCell', title: 'PricingMatrixCell', additionalProperties: false },
)

const PricingMatrixRow = Type.Object(
  {
    priority: Type.Integer(),
    price: DecimalOut,
    description: NullableString(),
    values: Type.Array(PricingMatrixCell),
  },
  { $id: 'PricingMatrixRow', title: 'PricingMatrixRow', additionalProperties: false },
)

const versionProperties = {
  version: Type.Integer(),
  status: Type.Unsafe<string>({ type: 'string', enum: ['DRAFT', 'PUBLISHED'] }),
  pricingModel: PricingModelOut,
  currency: Type.String(),
  validFrom: Type.Unsafe<string | null>({ type: ['string', 'null'], format: 'date' }),
  validTo: Type.Unsafe<string | null>({
    type: ['string', 'null'],
    format: 'date',
    description: 'exclusive end; null while open-ended',
  }),
  price: { ...DecimalOut, description: 'FLAT: the unit price; 0 for the other models' },
  price_fx: Type.Optional(Type.String({ description: 'FORMULA only: the formula' })),
  columns: Type.Optional(Type.Array(PricingMatrixColumn, { description: 'MATRIX only: the dimensions' })),
  rows: Type.Optional(Type.Array(PricingMatrixRow, { description: 'MATRIX only: the price lines, by priority' })),
  publishedAt: Type.Unsafe<string | null>({ type: ['string', 'null'], format: 'date-time' }),
  auditable: Type.Object(
    {
      created: Type.String({ format: 'date-time' }),
      updated: NullableString(),
      creator: NullableString(),
      updater: NullableString(),
    },
    { additionalProperties: false },
  ),
}

export const PricingVersion = Type.Object(versionProperties, {
  $id: 'PricingVersion',
  title: 'PricingVersion',
  additionalProperties: false,
})

export const PricingVersions = Type.Object(
  { pricingVersions: Type.Array(PricingVersion, { description: 'every version of the charge, in version order' }) },
  { $id: 'PricingVersions', title: 'PricingVersions', additionalProperties: false },
)

/** The published version, the charge's new status and every version of the charge. */
export const PricingPublication = Type.Object(
  {
    ...versionProperties,
    chargeCode: Type.String(),
    chargeStatus: Type.Unsafe<string>({ type: 'string', enum: ['ACTIVE'] }),
    pricingVersions: Type.Array(PricingVersion),
  },
  { $id: 'PricingPublication', title: 'PricingPublication', additionalProperties: false },
)

export const PriceEvaluation = Type.Object(
  {
    chargeCode: Type.String(),
    version: Type.Integer(),
    status: Type.Unsafe<string>({ type: 'string', enum: ['DRAFT', 'PUBLISHED'] }),
    pricingModel: PricingModelOut,
    currency: Type.String(),
    quantity: DecimalOut,
    unitPrice: DecimalOut,
    explanation: Type.String(),
  },
  { $id: 'PriceEvaluation', title: 'PriceEvaluation', additionalProperties: false },
)
