import type { Decimal } from 'decimal.js'
import { formatDecimal, Money, UNIT_PRICE_SCALE } from '../../../kernel/money.ts'
import type { PricedUnit, RatingInput } from './pricing-model.ts'

export const MATRIX_COLUMN_TYPES = ['String', 'Long', 'Double', 'Boolean', 'Range_Numeric', 'Range_Date'] as const
export type MatrixColumnType = (typeof MATRIX_COLUMN_TYPES)[number]

/** A dimension of the matrix: the attribute whose order value selects the row. */
export interface MatrixColumn {
  readonly code: string
  readonly type: MatrixColumnType
  readonly position: number
  readonly attributeCode: string
}

/** One row's constraint on one column: an exact value, or (range columns) a `from <= v < to` interval. */
export interface MatrixCell {
  readonly dimensionCode: string
  readonly stringValue?: string | null
  /** Range columns: a decimal (Range_Numeric) or a yyyy-MM-dd date (Range_Date); absent = open bound. */
  readonly fromValue?: string | null
  readonly toValue?: string | null
}

export interface MatrixRow {
  readonly priority: number
  readonly price: Decimal
  readonly values: readonly MatrixCell[]
}

/** Price by combination of attribute values: rows tried in priority order, the first matching row prices. */
export interface MatrixPricing {
  readonly model: 'MATRIX'
  readonly columns: readonly MatrixColumn[]
  readonly rows: readonly MatrixRow[]
}

export const isRangeColumn = (type: MatrixColumnType): boolean => type === 'Range_Numeric' || type === 'Range_Date'

const NUMERIC = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d{1,4})?$/
const DATE_PREFIX = /^\d{4}-\d{2}-\d{2}/

const blank = (value: string | null | undefined): value is null | undefined | '' =>
  value === null || value === undefined || value === ''

/** `from <= value < to`, an absent bound being open; a value that is not a number (a date) matches nothing. */
function inRange(type: MatrixColumnType, value: string, from: string | null, to: string | null): boolean {
  if (type === 'Range_Numeric') {
    if (!NUMERIC.test(value)) return false
    const v = new Money(value)
    return (from === null || v.gte(from)) && (to === null || v.lt(to))
  }
  if (!DATE_PREFIX.test(value)) return false
  const day = value.slice(0, 10)
  return (from === null || day >= from) && (to === null || day < to)
}

function cellMatches(column: MatrixColumn, cell: MatrixCell | undefined, value: string | null | undefined): boolean {
  if (isRangeColumn(column.type)) {
    const fromValue = cell?.fromValue
    const toValue = cell?.toValue
    const from = blank(fromValue) ? null : fromValue
    const to = blank(toValue) ? null : toValue
    if (from === null && to === null) return true
    return !blank(value) && inRange(column.type, value, from, to)
  }
  // An empty or absent value in a row matches anything; otherwise exact, case-sensitive equality.
  const expected = cell?.stringValue
  return blank(expected) || value === expected
}

/** The first row, in priority order, whose every dimension matches the attribute values; undefined when none does. */
export function matchMatrixRow(
  pricing: Pick<MatrixPricing, 'columns' | 'rows'>,
  attributes: RatingInput['attributes'],
): MatrixRow | undefined {
  const rows = [...pricing.rows].sort((a, b) => a.priority - b.priority)
  return rows.find((row) =>
    pricing.columns.every((column) =>
      cellMatches(
        column,
        row.values.find((cell) => cell.dimensionCode === column.code),
        Object.hasOwn(attributes, column.attributeCode) ? attributes[column.attributeCode] : undefined,
      ),
    ),
  )
}

/** The attribute values a matrix looks at, as `CODE=value` (for messages). */
export function describeMatrixInput(pricing: Pick<MatrixPricing, 'columns'>, attributes: RatingInput['attributes']) {
  return [...pricing.columns]
    .sort((a, b) => a.position - b.position)
    .map(
      (c) =>
        `${c.attributeCode}=${(Object.hasOwn(attributes, c.attributeCode) && attributes[c.attributeCode]) || '(none)'}`,
    )
    .join(', ')
}

export function matrixUnitPrice(
  pricing: MatrixPricing,
  input: Pick<RatingInput, 'attributes'>,
): PricedUnit | undefined {
  const row = matchMatrixRow(pricing, input.attributes)
  if (!row) return undefined
  const unitPrice = new Money(row.price).toDecimalPlaces(UNIT_PRICE_SCALE, Money.ROUND_HALF_UP)
  return {
    unitPrice,
    matchedRow: row.priority,
    explanation: `matrix row ${row.priority} (${describeMatrixInput(pricing, input.attributes)}): ${formatDecimal(unitPrice)}`,
  }
}
