import { spawn } from 'node:child_process'
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const AUTOCANNON = require.resolve('autocannon/autocannon.js')

export interface LoadResult {
  requestsPerSec: number
  /** How long the load ran, in seconds. */
  durationSec: number
  p50: number
  p99: number
}

interface AutocannonJson {
  requests: { average: number }
  latency: { p50: number; p99: number }
  non2xx: number
  errors: number
}

/**
 * Drives one URL with autocannon in a child process (so the load generator does not share the server's event
 * loop), on loopback, bounded by `durationSec`. Fails when any answer is not 2xx.
 */
export async function load(
  url: string,
  options: {
    headers?: Record<string, string>
    durationSec: number
    connections: number
    /** POST and the like: the method and the JSON body. */
    method?: string
    /** Seconds a request may take before autocannon counts it as a timeout (its default: 10). */
    timeoutSec?: number
    body?: string
  },
): Promise<LoadResult> {
  const args = [AUTOCANNON, '--json', '-d', String(options.durationSec), '-c', String(options.connections)]
  if (options.method) args.push('-m', options.method)
  if (options.timeoutSec !== undefined) args.push('-t', String(options.timeoutSec))
  if (options.body !== undefined) args.push('-b', options.body, '-H', 'content-type=application/json')
  for (const [name, value] of Object.entries(options.headers ?? {})) args.push('-H', `${name}=${value}`)
  args.push(url)
  const output = await new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'ignore'] })
    let text = ''
    child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()))
    child.on('error', reject)
    child.on('exit', (code) =>
      code === 0 ? resolve(text) : reject(new Error(`autocannon exited with ${code ?? 'a signal'}`)),
    )
  })
  const result = JSON.parse(output) as AutocannonJson
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(`${url}: ${result.non2xx} non-2xx answers and ${result.errors} errors under load`)
  }
  return {
    requestsPerSec: result.requests.average,
    durationSec: options.durationSec,
    p50: result.latency.p50,
    p99: result.latency.p99,
  }
}

export function formatRow(name: string, obol: LoadResult, baseline: LoadResult): string {
  const ratio = obol.requestsPerSec / baseline.requestsPerSec
  // Under 10 requests a second (scans of millions of rows), one decimal: 0.3 is not 0.
  const rate = (r: LoadResult) => r.requestsPerSec.toFixed(r.requestsPerSec < 10 ? 1 : 0)
  const cell = (r: LoadResult) =>
    `${rate(r).padStart(7)} req/s  p50 ${String(r.p50).padStart(3)} ms  p99 ${String(r.p99).padStart(4)} ms`
  return `${name.padEnd(30)} obol ${cell(obol)} | baseline ${cell(baseline)} | ratio ${ratio.toFixed(2)}`
}

/**
 * Measures two URLs in alternating rounds (A, B, A, B, ...), so that a slow spell of the machine weighs on both
 * sides alike. Requests/s is the mean over the rounds; p50 and p99 are the medians of the rounds' values.
 */
export async function loadAlternating(
  urls: readonly [string, string],
  options: Parameters<typeof load>[1] & { rounds: number },
): Promise<[LoadResult, LoadResult]> {
  const runs: [LoadResult[], LoadResult[]] = [[], []]
  for (let round = 0; round < options.rounds; round += 1) {
    // The first side alternates too: neither always runs on a cold or a warm machine.
    const order = round % 2 === 0 ? [0, 1] : [1, 0]
    for (const side of order) runs[side]!.push(await load(urls[side]!, options))
  }
  return [mergeRounds(runs[0]), mergeRounds(runs[1])]
}

/** Several rounds of one measurement as one: mean requests/s, median p50 and p99. */
export function mergeRounds(results: readonly LoadResult[]): LoadResult {
  const median = (values: number[]) => values.sort((x, y) => x - y)[Math.floor((values.length - 1) / 2)]!
  return {
    requestsPerSec: results.reduce((sum, r) => sum + r.requestsPerSec, 0) / results.length,
    durationSec: results.reduce((sum, r) => sum + r.durationSec, 0),
    p50: median(results.map((r) => r.p50)),
    p99: median(results.map((r) => r.p99)),
  }
}
