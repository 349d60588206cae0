import type { Decimal } from 'decimal.js'
import { formatDecimal, Money } from './money.ts'

/*
 * Decimals on the wire are never binary floating point. A double holds about 16 significant
 * digits, so `12345678901234.5678` parsed or written as a JS number becomes `12345678901234.568`. On the way in, a
 * JSON number a double cannot hold exactly is read as its decimal text; on the way out, decimals are JSON number
 * literals written from their decimal text (`JSON.rawJSON`, which `JSON.stringify` writes verbatim).
 */

/** A JSON number literal holding a decimal's exact text: `JSON.stringify` writes it as is. */
export interface DecimalJson {
  readonly rawJSON: string
}

// Node 22+ implements JSON.parse source text access and JSON.rawJSON; the TypeScript lib does not declare them yet.
const json = JSON as unknown as {
  rawJSON(text: string): DecimalJson
  isRawJSON(value: unknown): value is DecimalJson
}

export type Reviver = (key: string, value: unknown, context?: { source?: string }) => unknown

/** A decimal as a JSON number, written from its decimal text (`formatDecimal`): never through a double. */
export function decimalJson(value: Decimal.Value): DecimalJson {
  return json.rawJSON(formatDecimal(value))
}

export const isDecimalJson = (value: unknown): value is DecimalJson => json.isRawJSON(value)

/** True when the double JSON.parse made of a number literal is exactly the literal's decimal value. */
function exactDouble(value: number, source: string): boolean {
  if (String(value) === source) return true
  return Number.isFinite(value) && new Money(source).eq(value)
}

/**
 * The JSON.parse reviver of request bodies: a number a double cannot hold exactly becomes its plain decimal text
 * (`"12345678901234.5678"`), which every decimal field accepts as it accepts decimal strings, and which a field
 * wanting a JSON number refuses (400) rather than silently rounds. A literal whose plain form would be very long
 * (`1e400`) keeps its source text: no decimal field accepts it anyway.
 */
export const exactBodyNumbers: Reviver = (_key, value, context) => {
  if (typeof value !== 'number' || context?.source === undefined) return value
  const source = context.source
  if (exactDouble(value, source)) return value
  const decimal = new Money(source)
  return Math.abs(decimal.e) <= 40 ? decimal.toFixed() : source
}

/** 16 digits in a row (a dot allowed between them), or an exponent of 3 digits: a literal a double may not hold. */
const LONG_NUMBER = /(?:\d\.?){16}|[eE][+-]?\d{3}/

/**
 * The reviver a request body needs: `exactBodyNumbers` when the text may hold a number a double cannot hold, else
 * none. A number of at most 15 significant digits (and an exponent under 100) always comes back from a double as
 * written, and a reviver makes parsing several times slower, so ordinary bodies skip it.
 */
export function bodyReviver(text: string): Reviver | undefined {
  return LONG_NUMBER.test(text) ? exactBodyNumbers : undefined
}

/**
 * Parses JSON written by PostgreSQL (records built with `json_build_object`): a number a double cannot hold exactly
 * stays a `DecimalJson`, which responses write back verbatim (response schemas declare it with `decimalOut`).
 */
export function parseDatabaseJson(text: string): unknown {
  const reviver: Reviver = (_key, value, context) =>
    typeof value === 'number' && context?.source !== undefined && !exactDouble(value, context.source)
      ? json.rawJSON(context.source)
      : value
  return JSON.parse(text, reviver)
}

/**
 * The response schema of a decimal: no JSON type, so the serializer writes the value with `JSON.stringify` (a
 * `DecimalJson` verbatim); `format: decimal` marks it, and the OpenAPI document shows it as a number
 * (`documentDecimals`).
 */
export const decimalOut = { format: 'decimal', description: 'a decimal number, written exactly' } as const

/** A decimal or null (usage lines, open bounds); `x-nullable` because OpenAPI 3.1 drops `nullable` without a type. */
export const nullableDecimalOut = { ...decimalOut, 'x-nullable': true } as const

/**
 * Gives every decimal of the OpenAPI document its JSON type: `number` (or `number`/`null` when nullable), as OpenAPI
 * 3.1 writes it. Response schemas leave the type out only so that the serializer writes decimals verbatim. Returns a
 * copy: the route schemas the serializers were compiled from stay untouched.
 */
export function documentDecimals<T>(document: T): T {
  const copy = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(copy)
    if (typeof node !== 'object' || node === null) return node
    const schema = Object.fromEntries(Object.entries(node).map(([key, value]) => [key, copy(value)]))
    if (schema.format === 'decimal' && schema.type === undefined) {
      schema.type = schema['x-nullable'] === true ? ['number', 'null'] : 'number'
      delete schema['x-nullable']
    }
    return schema
  }
  return copy(document) as T
}
