import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)

interface AutocannonResult {
  requests: { average: number }
  latency: { p50: number; p99: number }
  non2xx: number
  errors: number
}
type Autocannon = (options: Record<string, unknown>) => Promise<AutocannonResult>

// autocannon ships CommonJS without types: the options and result fields used here are its documented ones.
const autocannon = require('autocannon') as Autocannon

export interface LoadResult {
  requestsPerSec: number
  p50: number
  p99: number
}

/** Drives one URL with autocannon on loopback; fails when any answer is not 2xx. */
export async function load(
  url: string,
  options: { headers?: Record<string, string>; durationSec: number; connections: number },
): Promise<LoadResult> {
  const result = await autocannon({
    url,
    headers: options.headers ?? {},
    duration: options.durationSec,
    connections: options.connections,
    pipelining: 1,
  })
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(`${url}: ${result.non2xx} non-2xx answers and ${result.errors} errors under load`)
  }
  return { requestsPerSec: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 }
}

export function formatRow(name: string, obol: LoadResult, baseline: LoadResult): string {
  const ratio = obol.requestsPerSec / baseline.requestsPerSec
  const cell = (r: LoadResult) =>
    `${r.requestsPerSec.toFixed(0).padStart(7)} req/s  p50 ${String(r.p50).padStart(3)} ms  p99 ${String(r.p99).padStart(4)} ms`
  return `${name.padEnd(34)} obol ${cell(obol)} | baseline ${cell(baseline)} | ratio ${ratio.toFixed(2)}`
}
