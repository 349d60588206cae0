import { sql, type SQL } from 'drizzle-orm'
import type { FieldDef } from './registry.ts'

/**
 * The one wire format of an instant: ISO-8601 in UTC with milliseconds (`2026-03-01T09:30:00.250Z`), as JavaScript's
 * `toISOString` writes it. A value read back and sent again in a filter names the same millisecond.
 */
export function instantText(expression: SQL): SQL {
  return sql`to_char(${expression} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`
}

/** The same wire format for an instant held in JavaScript (which keeps milliseconds, as the wire does). */
export function isoInstant(value: Date): string
export function isoInstant(value: Date | null): string | null
export function isoInstant(value: Date | null): string | null {
  return value === null ? null : value.toISOString()
}

/**
 * The wire form of a column, computed by PostgreSQL so no driver's type parsing is involved: instants as
 * `instantText` writes them, dates as `yyyy-MM-dd`, numerics and int8 as JSON numbers.
 */
export function wireValue(alias: string, field: FieldDef): SQL {
  const column = sql`${sql.identifier(alias)}.${sql.identifier(field.column)}`
  switch (field.type) {
    case 'instant':
      return instantText(column)
    case 'date':
      return sql`to_char(${column}, 'YYYY-MM-DD')`
    default:
      return column
  }
}

/** A text[] parameter written as an array literal, so both drivers send it identically. */
export function textArray(values: readonly string[]): SQL {
  const literal = `{${values.map((v) => `"${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`).join(',')}}`
  return sql`${literal}::text[]`
}

/** A text[] parameter that may hold nulls (written `NULL`, unquoted, in the array literal). */
export function nullableTextArray(values: readonly (string | null)[]): SQL {
  const element = (v: string | null) => (v === null ? 'NULL' : `"${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`)
  return sql`${`{${values.map(element).join(',')}}`}::text[]`
}

/** A parameter cast to the column's type, so both drivers send arrays and JSON the same way. */
export function columnParam(field: FieldDef, value: unknown): SQL {
  if (value === null || value === undefined) return sql`null`
  switch (field.type) {
    case 'json':
      return sql`${JSON.stringify(value)}::jsonb`
    case 'stringList':
      return textArray(value as string[])
    case 'decimal':
      return sql`${typeof value === 'number' ? value.toString() : (value as string)}::numeric`
    case 'date':
      return sql`${value as string}::date`
    case 'instant':
      return sql`${value}::timestamptz`
    default:
      return sql`${value}`
  }
}
