/**
 * When a delivery is attempted (invoicing-events.md §5): at once, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h
 * after the previous attempt, each ±10 % so that endpoints that failed together are not retried together.
 */
export const RETRY_DELAYS_MS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000] as const
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1
/** The longest a `Retry-After` is honoured for. */
export const MAX_RETRY_AFTER_MS = 86_400_000
/** An endpoint whose deliveries have all failed this long is disabled. */
export const DISABLE_AFTER_FAILING_MS = 5 * 86_400_000

/** The answer of one attempt, as the delivery decides on it. */
export type AttemptResult =
  | { readonly kind: 'status'; readonly status: number; readonly retryAfter?: string | undefined }
  | { readonly kind: 'error'; readonly message: string }

export type Outcome =
  | { readonly status: 'SUCCEEDED' }
  | { readonly status: 'FAILED'; readonly disableEndpoint?: string }
  | { readonly status: 'RETRYING'; readonly nextAttemptAt: Date }

/** A `Retry-After` in milliseconds: seconds, or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(value: string | undefined, now: Date): number | undefined {
  if (value === undefined) return undefined
  const trimmed = value.trim()
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000
  const at = Date.parse(trimmed)
  return Number.isNaN(at) ? undefined : Math.max(0, at - now.getTime())
}

/**
 * What an attempt leads to: a 2xx succeeds; a 410 fails the delivery and disables the endpoint (it says it is gone);
 * a 429 or 503 with `Retry-After` waits that long (24 h at most) instead of the schedule; anything else waits the
 * schedule's next delay, and after the last attempt the delivery is FAILED. `attempts` counts this one; `jitter` is
 * a factor in [0.9, 1.1].
 */
export function outcomeOf(result: AttemptResult, attempts: number, now: Date, jitter: number): Outcome {
  if (result.kind === 'status' && result.status >= 200 && result.status < 300) return { status: 'SUCCEEDED' }
  if (result.kind === 'status' && result.status === 410)
    return { status: 'FAILED', disableEndpoint: 'the endpoint answered 410 Gone' }
  if (attempts >= MAX_ATTEMPTS) return { status: 'FAILED' }
  if (result.kind === 'status' && (result.status === 429 || result.status === 503)) {
    const wait = retryAfterMs(result.retryAfter, now)
    if (wait !== undefined)
      return { status: 'RETRYING', nextAttemptAt: new Date(now.getTime() + Math.min(wait, MAX_RETRY_AFTER_MS)) }
  }
  const delay = RETRY_DELAYS_MS[attempts - 1]!
  return { status: 'RETRYING', nextAttemptAt: new Date(now.getTime() + Math.round(delay * jitter)) }
}
