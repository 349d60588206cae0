import { Decimal } from 'decimal.js'
import { AppError } from '../../kernel/errors.ts'

/** A JSON number kept as its source text because a double would not hold it exactly (`0.10000000000000000001`). */
export interface ExactNumber {
  readonly rawJSON: string
}

// Node 22+ implements JSON.parse source text access and JSON.rawJSON; the TypeScript lib does not declare them yet.
const json = JSON as unknown as {
  parse(text: string, reviver: (key: string, value: unknown, context?: { source?: string }) => unknown): unknown
  rawJSON(text: string): ExactNumber
  isRawJSON(value: unknown): value is ExactNumber
}

export const isExactNumber = (value: unknown): value is ExactNumber => json.isRawJSON(value)

/**
 * Parses JSON without losing decimal digits: a number a double cannot represent exactly stays its source text
 * (a raw JSON value, which `JSON.stringify` writes back verbatim). Keys that could reach an object prototype
 * are refused, as Fastify's own parser does.
 */
export function parseJsonExact(text: string): unknown {
  return json.parse(text, (key, value, context) => {
    if (key === '__proto__' || key === 'constructor') throw new SyntaxError(`forbidden key ${key}`)
    if (typeof value !== 'number' || context?.source === undefined) return value
    const source = context.source
    if (!Number.isFinite(value)) return json.rawJSON(source)
    return new Decimal(source).eq(new Decimal(value)) ? value : json.rawJSON(source)
  })
}

/** The `filters` parameter of the GET dialect: URL-decoded JSON text, which must hold an object. */
export function parseFiltersText(text: string): Record<string, unknown> {
  let parsed: unknown
  try {
    parsed = parseJsonExact(text)
  } catch {
    throw new AppError('INVALID_FILTER', 'filters: expected a URL-encoded JSON object, the text is not valid JSON', {
      details: [{ field: 'filters', message: 'is not valid JSON' }],
    })
  }
  if (!isPlainObject(parsed)) {
    throw new AppError('INVALID_FILTER', 'filters: expected a JSON object', {
      details: [{ field: 'filters', message: 'expected a JSON object' }],
    })
  }
  return parsed
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !isExactNumber(value)
}
