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

const isSpace = (c: number) => c === 32 || c === 10 || c === 13 || c === 9

/**
 * JSON text without the whitespace PostgreSQL writes between tokens (`{"id" : 4}` → `{"id":4}`), so the Query
 * API's JSON looks like the rest of the API. Strings are copied as they are; one pass, no parsing into values (the
 * numbers keep their exact digits).
 */
export function compactJson(text: string): string {
  const n = text.length
  let out = ''
  let start = 0
  let i = 0
  while (i < n) {
    const c = text.charCodeAt(i)
    if (c === 34) {
      i++
      while (i < n) {
        const d = text.charCodeAt(i)
        if (d === 92) i += 2
        else if (d === 34) break
        else i++
      }
      i++
    } else if (isSpace(c)) {
      out += text.slice(start, i)
      i++
      while (i < n && isSpace(text.charCodeAt(i))) i++
      start = i
    } else i++
  }
  return start === 0 ? text : out + text.slice(start)
}
