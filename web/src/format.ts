/**
 * How the UI writes amounts and dates, in one place. Amounts arrive as decimal strings (the API never sends money as
 * a JSON number) and are formatted from the string itself (Intl.NumberFormat reads a decimal string exactly), so no
 * amount passes through a binary float on its way to the screen. The currency's own decimals apply unless the amount
 * has more (a unit price of 0.0125 EUR is shown as it is, never rounded for display).
 */
const formats = new Map<string, Intl.NumberFormat>()

function formatFor(currency: string | undefined, decimals: number | undefined): Intl.NumberFormat {
  const key = `${currency ?? ''}:${decimals ?? ''}`
  let format = formats.get(key)
  if (!format) {
    format = new Intl.NumberFormat('en-GB', {
      ...(currency ? { style: 'currency', currency, currencyDisplay: 'code' } : {}),
      ...(decimals !== undefined ? { minimumFractionDigits: decimals, maximumFractionDigits: decimals } : {}),
    })
    formats.set(key, format)
  }
  return format
}

/** The digits after the point a decimal string carries (`'0.0125'` → 4). */
function decimalsOf(amount: string): number {
  const point = amount.indexOf('.')
  return point < 0 ? 0 : amount.length - point - 1
}

/** `money('1234.5', 'EUR')` → `EUR 1,234.50`; null or empty → an en dash. */
export function money(amount: string | null | undefined, currency?: string | null): string {
  if (amount === null || amount === undefined || amount === '') return '–'
  const currencyDecimals = currency ? (formatFor(currency, undefined).resolvedOptions().minimumFractionDigits ?? 2) : 2
  const decimals = Math.max(currencyDecimals, decimalsOf(amount))
  // Intl accepts a decimal string as an exact value; the cast is only for TypeScript's older signature.
  return formatFor(currency ?? undefined, decimals).format(amount as unknown as number)
}

/** A quantity as it is, with digit grouping: `quantity('12500.5')` → `12,500.5`. */
export function quantity(value: string | null | undefined): string {
  if (value === null || value === undefined || value === '') return '–'
  return formatFor(undefined, decimalsOf(value)).format(value as unknown as number)
}

/** A calendar date (`2027-01-01`, or the date part of a timestamp) as `1 Jan 2027`. */
export function day(value: string | null | undefined): string {
  if (!value) return '–'
  const [y, m, d] = value.slice(0, 10).split('-').map(Number)
  if (!y || !m || !d) return value
  return new Date(Date.UTC(y, m - 1, d)).toLocaleDateString('en-GB', {
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    timeZone: 'UTC',
  })
}

/** A moment as `1 Jan 2027, 14:05` in the browser's zone (for events and runs, not for billing dates). */
export function moment(value: string | null | undefined): string {
  if (!value) return '–'
  const date = new Date(value)
  return Number.isNaN(date.getTime())
    ? value
    : date.toLocaleString('en-GB', {
        day: 'numeric',
        month: 'short',
        year: 'numeric',
        hour: '2-digit',
        minute: '2-digit',
      })
}
