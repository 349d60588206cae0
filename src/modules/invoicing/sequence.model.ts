/** How often a sequence starts again at 1: never, each year or each month of the invoice date. */
export type ResetEach = 'NEVER' | 'YEAR' | 'MONTH'
export const RESET_EACH = ['NEVER', 'YEAR', 'MONTH'] as const

/** The tenant's default patterns (invoicing-events.md §2.5): never reset. */
export const DEFAULT_PATTERNS = { INVOICE: 'INV-{yyyy}-{seq:6}', CREDIT_NOTE: 'CN-{yyyy}-{seq:6}' } as const

export const MAX_PATTERN_LENGTH = 100

const TOKEN = /\{(yyyy|yy|mm|seq:(\d{1,2}))\}/g

/**
 * A pattern's problem, or undefined when it can number invoices: exactly one `{seq:N}` (N from 1 to 20), only the
 * tokens `{yyyy}`, `{yy}`, `{mm}`, `{seq:N}`, other characters printable; a sequence reset each year must carry
 * the year, one reset each month the year and the month — otherwise two periods would give the same numbers.
 */
export function patternProblem(pattern: string, resetEach: ResetEach): string | undefined {
  if (pattern.length === 0 || pattern.length > MAX_PATTERN_LENGTH)
    return `must have 1 to ${MAX_PATTERN_LENGTH} characters`
  const outside = pattern.replace(TOKEN, '')
  if (/[{}]/.test(outside)) return 'tokens are {yyyy}, {yy}, {mm} and {seq:N}; no other braces'
  if (/[^\x21-\x7e]/.test(outside)) return 'characters outside tokens must be printable ASCII without spaces'
  const tokens = [...pattern.matchAll(TOKEN)]
  const seqs = tokens.filter((t) => t[2] !== undefined)
  if (seqs.length !== 1) return 'must hold exactly one {seq:N}'
  const width = Number(seqs[0]![2])
  if (width < 1 || width > 20) return '{seq:N} takes N from 1 to 20'
  const has = (name: string) => tokens.some((t) => t[1] === name)
  const year = has('yyyy') || has('yy')
  if (resetEach === 'YEAR' && !year) return 'a sequence reset each year must hold {yyyy} or {yy}'
  if (resetEach === 'MONTH' && !(year && has('mm')))
    return 'a sequence reset each month must hold {mm} and {yyyy} or {yy}'
  return undefined
}

/** The counter a number of an invoice dated `day` (yyyy-MM-dd) is taken from: one per reset period. */
export function periodKey(resetEach: ResetEach, day: string): string {
  switch (resetEach) {
    case 'NEVER':
      return ''
    case 'YEAR':
      return day.slice(0, 4)
    case 'MONTH':
      return day.slice(0, 7)
  }
}

/** The number `value` of a sequence, for an invoice dated `day`: tokens replaced, the value zero-padded to N. */
export function formatNumber(pattern: string, day: string, value: number): string {
  return pattern.replace(TOKEN, (_token, name: string, width?: string) => {
    if (width !== undefined) return String(value).padStart(Number(width), '0')
    if (name === 'yyyy') return day.slice(0, 4)
    if (name === 'yy') return day.slice(2, 4)
    return day.slice(5, 7)
  })
}
