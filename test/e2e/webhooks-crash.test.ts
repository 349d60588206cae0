import http from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { api, obol, startServer, useCli, type Server } from '../support/cli.ts'
import { createTestDatabase, onPostgres } from '../support/test-database.ts'

const { root } = useCli()

/**
 * A receiver that holds every request open (no answer) while `holding`, then answers 200: an instance killed while
 * its attempts wait for their answers.
 */
function holdingReceiver() {
  const ids: string[] = []
  const held: http.ServerResponse[] = []
  let holding = true
  const server = http.createServer((request, response) => {
    request.resume()
    request.on('end', () => {
      ids.push(String(request.headers['webhook-id']))
      if (holding) held.push(response)
      else response.writeHead(200).end('ok')
    })
  })
  return {
    ids,
    listen: () =>
      new Promise<string>((resolve) =>
        server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
      ),
    answer: () => (holding = false),
    close: () => {
      for (const response of held) response.destroy()
      return new Promise((resolve) => server.close(resolve))
    },
  }
}

async function until<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 60_000
  for (;;) {
    const value = await read()
    if (done(value)) return value
    if (Date.now() > deadline) throw new Error(`${what}: ${JSON.stringify(value)}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

describe.skipIf(!onPostgres)('an instance killed while delivering (PostgreSQL server)', { timeout: 180_000 }, () => {
  it('another instance delivers every event again with the same ids once the dead one stops heartbeating', async () => {
    const database = await createTestDatabase()
    const receiver = holdingReceiver()
    const servers: Server[] = []
    try {
      const env = {
        DATABASE_URL: database.url!,
        WEBHOOK_PRIVATE_TARGETS: 'allow',
        INSTANCE_STALE_AFTER_MS: '3000',
        HEARTBEAT_INTERVAL_MS: '500',
        OBOL_FROM_SOURCES: '1',
      }
      const seeded = await obol(['seed-demo'], env).exited
      expect(seeded.code, seeded.stderr).toBe(0)
      const base = await receiver.listen()
      const first = await startServer(path.join(root, 'unused-1'), env)
      servers.push(first)
      const endpoint = await api(first, 'POST', '/api/v1/webhookEndpoints', {
        url: `${base}/hook`,
        eventTypes: ['wallet.credited'],
      })
      expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201)
      const wallet = await api(first, 'POST', '/api/v1/userAccounts/UA_001/wallets', {
        code: 'PP',
        walletType: 'PREPAID',
      })
      expect(wallet.status, JSON.stringify(wallet.body)).toBe(201)
      for (let i = 0; i < 10; i++) {
        const credited = await api(first, 'POST', '/api/v1/userAccounts/UA_001/wallets/PP/credits', { amount: 1 })
        expect(credited.status).toBe(201)
      }
      // All ten attempts under way, none answered: the instance dies with them.
      await until(
        'ten attempts under way',
        async () => receiver.ids.length,
        (n) => n >= 10,
      )
      first.child.kill('SIGKILL')
      await first.exited
      const sentBefore = [...new Set(receiver.ids)]
      expect(sentBefore).toHaveLength(10)

      receiver.answer()
      const second = await startServer(path.join(root, 'unused-2'), env)
      servers.push(second)
      const deliveries = await until(
        'every delivery SUCCEEDED',
        async () =>
          (await api(second, 'GET', `/api/v1/webhookEndpoints/${endpoint.body.id}/deliveries?limit=100`)).body
            .data as any[],
        (data) => data.length === 10 && data.every((d) => d.status === 'SUCCEEDED'),
      )
      // Each event sent again with its id: at least once, the receiver's key to drop the duplicate.
      const again = receiver.ids.slice(10)
      expect(new Set(again)).toEqual(new Set(sentBefore))
      // Claimed twice (the dead instance's attempt is not recorded: it never ended), succeeded on the second.
      expect(deliveries.map((d) => [d.attempts, d.attemptLog.length, d.attemptLog[0].statusCode])).toEqual(
        Array.from({ length: 10 }, () => [2, 1, 200]),
      )
    } finally {
      for (const server of servers) if (server.child.exitCode === null) server.child.kill('SIGKILL')
      await receiver.close()
      await database.drop()
    }
  })
})
