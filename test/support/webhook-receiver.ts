import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, expect } from 'vitest'

export interface Received {
  readonly path: string
  readonly headers: http.IncomingHttpHeaders
  readonly body: string
}

/**
 * A real webhook receiver on loopback for a test file: records every request; a path's answers can be scripted
 * (status, headers), else 200 with a short body.
 */
export function useWebhookReceiver() {
  const received: Received[] = []
  const scripts = new Map<string, { status: number; headers?: Record<string, string> }[]>()
  let server: http.Server | undefined
  let base = ''
  beforeAll(async () => {
    server = http.createServer((request, response) => {
      let body = ''
      request.setEncoding('utf8').on('data', (chunk: string) => (body += chunk))
      request.on('end', () => {
        received.push({ path: request.url ?? '', headers: request.headers, body })
        const next = scripts.get(request.url ?? '')?.shift() ?? { status: 200 }
        response.writeHead(next.status, next.headers ?? {}).end('ok from the receiver')
      })
    })
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve))
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve))
  })
  return {
    received,
    scripts,
    get base() {
      return base
    },
    /** Waits (polling) until `path` has received `count` requests; answers them in order. */
    arrivals: async (path: string, count: number): Promise<Received[]> => {
      await expect
        .poll(() => received.filter((r) => r.path === path).length, { timeout: 10_000 })
        .toBeGreaterThanOrEqual(count)
      return received.filter((r) => r.path === path)
    },
  }
}
