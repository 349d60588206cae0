import type { ErrorDetail } from '../../kernel/errors.ts'

const LIST_TYPES = new Set(['LIST_TEXT', 'LIST_MULTIPLE_TEXT', 'LIST_NUMERIC'])
const NUMBER = /^-?\d+(\.\d+)?$/

/** LIST_* attributes need allowed values (numbers for LIST_NUMERIC); other types take none. */
export function validateAttribute(record: Record<string, unknown>): ErrorDetail[] {
  const type = record.attributeType as string | undefined
  const values = (record.allowedValues as string[] | undefined) ?? []
  if (type === undefined) return []
  if (LIST_TYPES.has(type)) {
    if (values.length === 0) return [{ field: 'allowedValues', message: `a ${type} attribute needs allowed values` }]
    if (type === 'LIST_NUMERIC') {
      return values.flatMap((value, i) =>
        NUMBER.test(value)
          ? []
          : [{ field: `allowedValues[${i}]`, message: 'expected a number for a LIST_NUMERIC attribute' }],
      )
    }
    return []
  }
  return values.length > 0
    ? [
        {
          field: 'allowedValues',
          message: `only LIST_TEXT, LIST_MULTIPLE_TEXT and LIST_NUMERIC attributes take allowed values, not ${type}`,
        },
      ]
    : []
}
