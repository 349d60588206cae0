import { sql, type SQL } from 'drizzle-orm'
import type { FieldDef } from './registry.ts'

/**
 * The wire form of a column, computed by PostgreSQL so no driver's type parsing is involved: instants as
 * ISO-8601 UTC (`2026-03-01T00:00:00Z`), dates as `yyyy-MM-dd`, numerics and int8 as JSON numbers.
 */
export function wireValue(alias: string, field: FieldDef): SQL {
  const column = sql`${sql.identifier(alias)}.${sql.identifier(field.column)}`
  switch (field.type) {
    case 'instant':
      return sql`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')`
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
