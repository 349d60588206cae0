import type { ErrorDetail } from '../../kernel/errors.ts'
import { Money } from '../../kernel/money.ts'
import { readDecimal, readUnitPrice } from './decimal-input.ts'
import {
  isRangeColumn,
  type MatrixCell,
  type MatrixColumn,
  type MatrixColumnType,
  type MatrixRow,
} from './models/index.ts'

/** A MATRIX column as sent in the draft body (JSON-schema validated). */
export interface MatrixColumnInput {
  code: string
  type: MatrixColumnType
  position?: number
  attributeCode: string
  isRange?: boolean
  allowedValues?: string[]
}

export interface MatrixCellInput {
  dimensionCode: string
  stringValue?: string | null
  fromValue?: number | string | null
  toValue?: number | string | null
}

export interface MatrixRowInput {
  price: number | string
  priority?: number
  description?: string | null
  values?: MatrixCellInput[]
}

/** What the matrix needs to know of an attribute. */
export interface MatrixAttribute {
  code: string
  attributeType: string
  allowedValues: readonly string[]
  disabled: boolean
}

export interface ValidMatrix {
  columns: MatrixColumn[]
  rows: (MatrixRow & { description: string | null })[]
}

const NUMERIC_ATTRIBUTES = new Set(['NUMERIC', 'INTEGER', 'LIST_NUMERIC'])

/** Which attribute types can back each column type. */
function acceptsAttribute(type: MatrixColumnType, attributeType: string): boolean {
  switch (type) {
    case 'Range_Numeric':
    case 'Double':
    case 'Long':
      return NUMERIC_ATTRIBUTES.has(attributeType)
    case 'Range_Date':
      return attributeType === 'DATE'
    case 'Boolean':
      return attributeType === 'BOOLEAN'
    case 'String':
      return true
  }
}

const DATE = /^\d{4}-\d{2}-\d{2}$/
const isDate = (value: string) =>
  DATE.test(value) &&
  !Number.isNaN(Date.parse(`${value}T00:00:00Z`)) &&
  new Date(`${value}T00:00:00Z`).toISOString().startsWith(value)

/** A range bound as stored: a canonical decimal string or a yyyy-MM-dd date; null when open. */
function readBound(
  type: MatrixColumnType,
  value: number | string | null | undefined,
  field: string,
  problems: ErrorDetail[],
): string | null | undefined {
  if (value === null || value === undefined || value === '') return null
  if (type === 'Range_Date') {
    if (typeof value !== 'string' || !isDate(value)) {
      problems.push({ field, message: 'expected a date yyyy-MM-dd' })
      return undefined
    }
    return value
  }
  if (typeof value === 'string' && !/^-?\d+(\.\d+)?$/.test(value)) {
    problems.push({ field, message: 'expected a number' })
    return undefined
  }
  return readDecimal(value, field, problems)?.toFixed()
}

function exactValueProblem(type: MatrixColumnType, attribute: MatrixAttribute, value: string): string | undefined {
  if ((type === 'Long' || type === 'Double') && !/^-?\d+(\.\d+)?$/.test(value)) return 'expected a number'
  if (type === 'Long' && !/^-?\d+$/.test(value)) return 'expected an integer'
  if (type === 'Boolean' && value !== 'true' && value !== 'false') return 'expected true or false'
  if (attribute.allowedValues.length > 0 && !attribute.allowedValues.includes(value)) {
    return `'${value}' is not an allowed value of attribute ${attribute.code} (${attribute.allowedValues.join(', ')})`
  }
  return undefined
}

/** Two intervals [from, to) intersect; null bounds are open. Bounds of one column compare as decimals or dates. */
function intersects(type: MatrixColumnType, a: MatrixCell | undefined, b: MatrixCell | undefined): boolean {
  const lower = (x: string | null | undefined, y: string | null | undefined) => {
    if (x == null) return y ?? null
    if (y == null) return x
    return greater(type, x, y) ? x : y
  }
  const upper = (x: string | null | undefined, y: string | null | undefined) => {
    if (x == null) return y ?? null
    if (y == null) return x
    return greater(type, x, y) ? y : x
  }
  const from = lower(a?.fromValue, b?.fromValue)
  const to = upper(a?.toValue, b?.toValue)
  return from === null || to === null || greater(type, to, from)
}

function greater(type: MatrixColumnType, x: string, y: string): boolean {
  return type === 'Range_Date' ? x > y : new Money(x).gt(y)
}

/**
 * Validates a MATRIX definition against the attributes backing its columns (DECISIONS "MATRIX matching") and returns
 * it normalized: columns by position, rows with their priority (row order unless given) and canonical cells.
 * Problems name the field path as sent (`rows[2].values[0].stringValue`).
 */
export function validateMatrix(
  columnsInput: readonly MatrixColumnInput[],
  rowsInput: readonly MatrixRowInput[],
  attributes: ReadonlyMap<string, MatrixAttribute>,
): { problems: ErrorDetail[]; matrix: ValidMatrix } {
  const problems: ErrorDetail[] = []
  const columns: MatrixColumn[] = []
  const byCode = new Map<string, { column: MatrixColumn; attribute: MatrixAttribute | undefined }>()
  const positions = new Set<number>()
  const backing = new Set<string>()
  if (columnsInput.length === 0) problems.push({ field: 'columns', message: 'a MATRIX needs at least one column' })
  columnsInput.forEach((input, i) => {
    const field = `columns[${i}]`
    const position = input.position ?? i
    const attribute = attributes.get(input.attributeCode)
    if (byCode.has(input.code))
      problems.push({ field: `${field}.code`, message: `duplicate column code ${input.code}` })
    if (positions.has(position)) {
      problems.push({ field: `${field}.position`, message: `duplicate column position ${position}` })
    }
    if (!attribute) {
      problems.push({ field: `${field}.attributeCode`, message: `no attribute with code '${input.attributeCode}'` })
    } else {
      if (attribute.disabled) {
        problems.push({ field: `${field}.attributeCode`, message: `attribute ${attribute.code} is disabled` })
      }
      if (backing.has(attribute.code)) {
        problems.push({ field: `${field}.attributeCode`, message: `attribute ${attribute.code} backs two columns` })
      }
      if (!acceptsAttribute(input.type, attribute.attributeType)) {
        problems.push({
          field: `${field}.type`,
          message: `a ${input.type} column cannot be backed by attribute ${attribute.code} of type ${attribute.attributeType}`,
        })
      }
      input.allowedValues?.forEach((value, j) => {
        if (attribute.allowedValues.length > 0 && !attribute.allowedValues.includes(value)) {
          problems.push({
            field: `${field}.allowedValues[${j}]`,
            message: `'${value}' is not an allowed value of attribute ${attribute.code}`,
          })
        }
      })
      backing.add(attribute.code)
    }
    if (input.isRange !== undefined && input.isRange !== isRangeColumn(input.type)) {
      problems.push({
        field: `${field}.isRange`,
        message: `a ${input.type} column has isRange ${isRangeColumn(input.type)}`,
      })
    }
    const column: MatrixColumn = { code: input.code, type: input.type, position, attributeCode: input.attributeCode }
    byCode.set(input.code, { column, attribute })
    positions.add(position)
    columns.push(column)
  })

  if (rowsInput.length === 0) problems.push({ field: 'rows', message: 'a MATRIX needs at least one row' })
  const rows: ValidMatrix['rows'] = []
  const priorities = new Set<number>()
  rowsInput.forEach((input, i) => {
    const field = `rows[${i}]`
    const priority = input.priority ?? i
    if (priorities.has(priority))
      problems.push({ field: `${field}.priority`, message: `duplicate priority ${priority}` })
    priorities.add(priority)
    const price = readUnitPrice(input.price, `${field}.price`, problems)
    const cells: MatrixCell[] = []
    const seen = new Set<string>()
    ;(input.values ?? []).forEach((cell, j) => {
      const cellField = `${field}.values[${j}]`
      const target = byCode.get(cell.dimensionCode)
      if (!target) {
        problems.push({ field: `${cellField}.dimensionCode`, message: `no column with code '${cell.dimensionCode}'` })
        return
      }
      if (seen.has(cell.dimensionCode)) {
        problems.push({ field: `${cellField}.dimensionCode`, message: `column ${cell.dimensionCode} given twice` })
        return
      }
      seen.add(cell.dimensionCode)
      const { column, attribute } = target
      if (isRangeColumn(column.type)) {
        if (cell.stringValue) {
          problems.push({
            field: `${cellField}.stringValue`,
            message: `range column ${column.code} takes fromValue and toValue`,
          })
        }
        const from = readBound(column.type, cell.fromValue, `${cellField}.fromValue`, problems)
        const to = readBound(column.type, cell.toValue, `${cellField}.toValue`, problems)
        if (from && to && !greater(column.type, to, from)) {
          problems.push({ field: `${cellField}.toValue`, message: 'expected toValue greater than fromValue' })
        }
        if (from !== undefined && to !== undefined)
          cells.push({ dimensionCode: column.code, fromValue: from, toValue: to })
        return
      }
      if ((cell.fromValue ?? null) !== null || (cell.toValue ?? null) !== null) {
        problems.push({ field: cellField, message: `column ${column.code} is not a range column: use stringValue` })
      }
      const value = cell.stringValue ?? ''
      const problem = value === '' || !attribute ? undefined : exactValueProblem(column.type, attribute, value)
      if (problem) problems.push({ field: `${cellField}.stringValue`, message: problem })
      cells.push({ dimensionCode: column.code, stringValue: value })
    })
    if (price) rows.push({ priority, price, values: cells, description: input.description ?? null })
  })
  if (problems.length === 0) problems.push(...overlaps(columns, rows))
  columns.sort((a, b) => a.position - b.position)
  rows.sort((a, b) => a.priority - b.priority)
  return { problems, matrix: { columns, rows } }
}

/**
 * Rows with the same exact values (empty = any) whose ranges all intersect would price the same order twice:
 * duplicates without range columns, overlaps with them. Rows are compared in the order sent.
 */
function overlaps(columns: readonly MatrixColumn[], rows: readonly MatrixRow[]): ErrorDetail[] {
  const problems: ErrorDetail[] = []
  const exact = columns.filter((c) => !isRangeColumn(c.type))
  const ranges = columns.filter((c) => isRangeColumn(c.type))
  const cell = (row: MatrixRow, column: MatrixColumn) => row.values.find((v) => v.dimensionCode === column.code)
  const groups = new Map<string, number[]>()
  rows.forEach((row, i) => {
    const key = JSON.stringify(exact.map((c) => cell(row, c)?.stringValue ?? ''))
    const group = groups.get(key) ?? []
    const clash = group.find((j) => ranges.every((c) => intersects(c.type, cell(rows[j]!, c), cell(row, c))))
    if (clash !== undefined) {
      problems.push({
        field: `rows[${i}]`,
        message:
          ranges.length === 0
            ? `duplicates rows[${clash}]: same values`
            : `overlaps rows[${clash}]: same values and intersecting ranges of ${ranges.map((c) => c.code).join(', ')}`,
      })
    }
    group.push(i)
    groups.set(key, group)
  })
  return problems
}
