import http from 'node:http'
import https from 'node:https'
import type { LookupFunction } from 'node:net'
import type { CheckedTarget } from './targets.ts'
import type { AttemptResult } from './retry.model.ts'

/** An attempt succeeds on a 2xx within this time (invoicing-events.md §5). */
export const ATTEMPT_TIMEOUT_MS = 15_000
/** How much of an answer the attempt log keeps. */
export const LOGGED_ANSWER_BYTES = 2048

export type Sent = AttemptResult & { readonly responseBody: string | null }

/**
 * POSTs a signed event to a checked target, connecting to the address that was checked (the lookup answers it: a
 * second DNS answer cannot move the request elsewhere), following no redirect, giving up after ATTEMPT_TIMEOUT_MS;
 * only the first LOGGED_ANSWER_BYTES of the answer are read (then the connection is dropped).
 */
export function send(target: CheckedTarget, headers: Record<string, string>, body: string): Promise<Sent> {
  const lookup: LookupFunction = (_hostname, options, callback) => {
    if (options.all) callback(null, [{ address: target.address, family: target.family }])
    else callback(null, target.address, target.family)
  }
  const client = target.url.protocol === 'https:' ? https : http
  return new Promise<Sent>((resolve) => {
    let settled = false
    const finish = (result: Sent) => {
      if (settled) return
      settled = true
      resolve(result)
    }
    const request = client.request(
      {
        method: 'POST',
        hostname: target.url.hostname.replace(/^\[(.*)\]$/, '$1'),
        port: target.url.port || undefined,
        path: `${target.url.pathname}${target.url.search}`,
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        lookup,
        signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS),
        agent: false,
      },
      (response) => {
        const chunks: Buffer[] = []
        let size = 0
        const done = () =>
          finish({
            kind: 'status',
            status: response.statusCode ?? 0,
            retryAfter: headerValue(response.headers['retry-after']),
            responseBody: Buffer.concat(chunks).subarray(0, LOGGED_ANSWER_BYTES).toString('utf8'),
          })
        response.on('data', (chunk: Buffer) => {
          chunks.push(chunk)
          size += chunk.length
          if (size >= LOGGED_ANSWER_BYTES) {
            done()
            response.destroy()
          }
        })
        response.on('end', done)
        response.on('error', done)
      },
    )
    request.on('error', (error: NodeJS.ErrnoException) =>
      finish({
        kind: 'error',
        message:
          error.name === 'AbortError' || error.name === 'TimeoutError'
            ? `no answer within ${ATTEMPT_TIMEOUT_MS / 1000} s`
            : `could not deliver: ${error.code ?? error.message}`,
        responseBody: null,
      }),
    )
    request.end(body)
  })
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value
}
