import { spawn } from 'node:child_process'
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { Webhook } from 'standardwebhooks'
import { FakeClock } from '../../src/kernel/clock.ts'
import { useTestApp } from '../support/test-app.ts'
import { useWebhookReceiver } from '../support/webhook-receiver.ts'
import { created, seedReferenceData } from './catalog-fixtures.ts'

// Near the real time: a receiver checks webhook-timestamp against its own clock (5 minutes of tolerance).
const START = new Date(Math.floor(Date.now() / 1000) * 1000)
const clock = new FakeClock(START)
const t = useTestApp({ clock, env: { WEBHOOK_PRIVATE_TARGETS: 'allow' } })

const receiver = useWebhookReceiver()
const { received, scripts, arrivals } = receiver

beforeAll(async () => {
  await seedReferenceData(t)
  const post = (path: string, body: unknown) => created(t, 'POST', `/api/v1/${path}`, body)
  await post('countries', { code: 'FR', currency: 'EUR' })
  await post('languages', { code: 'ENG' })
  await post('billingCycles', { code: 'CYC_W', calendar: 'MONTHLY' })
  await post('sellers', { code: 'MAIN', tradingCurrency: 'EUR', country: 'FR' })
  await post('customers', { code: 'C_W', seller: 'MAIN' })
  await post('customerAccounts', { code: 'CA_W', customer: 'C_W' })
  await post('billingAccounts', {
    code: 'BA_W',
    customerAccount: 'CA_W',
    billingCycle: 'CYC_W',
    language: 'ENG',
    country: 'FR',
    tradingCurrency: 'EUR',
  })
  await post('userAccounts', { code: 'UA_W', billingAccount: 'BA_W' })
  await post('userAccounts/UA_W/wallets', { code: 'PP', walletType: 'PREPAID' })
})
async function endpoint(path: string, eventTypes: string[] = ['*']): Promise<{ id: number; secret: string }> {
  return created(t, 'POST', '/api/v1/webhookEndpoints', {
    url: `${receiver.base}${path}`,
    eventTypes,
    description: path,
  })
}

const credit = (amount: number) =>
  t.request('POST', '/api/v1/userAccounts/UA_W/wallets/PP/credits', { amount, reference: 'top-up' })

describe('webhook deliveries', () => {
  it('delivers a wallet credit as wallet.credited, signed by the Standard Webhooks scheme', async () => {
    const { secret } = await endpoint('/credited', ['wallet.credited'])
    expect((await credit(20)).status).toBe(201)
    const [arrival] = await arrivals('/credited', 1)
    const payload = new Webhook(secret).verify(arrival!.body, arrival!.headers as Record<string, string>) as any
    expect(payload).toMatchObject({
      id: arrival!.headers['webhook-id'],
      type: 'wallet.credited',
      occurredAt: START.toISOString(),
      data: {
        object: { userAccount: 'UA_W', code: 'PP', balance: 20, available: 20, currency: 'EUR' },
        previous: { balance: 0 },
      },
      aggregate: { type: 'wallet', sequence: 1 },
    })
    expect(payload.id).toMatch(/^evt_[0-9A-Z]{26}$/)
    expect(arrival!.headers['webhook-timestamp']).toBe(String(START.getTime() / 1000))
    expect(arrival!.headers['content-type']).toBe('application/json')
  })

  it('emits nothing for a refused change', async () => {
    await endpoint('/refused', ['wallet.credited'])
    expect((await credit(-5)).status).toBe(400)
    expect((await credit(0.001)).status).toBe(400)
    const ok = await credit(1)
    expect(ok.status).toBe(201)
    const arrived = await arrivals('/refused', 1)
    await new Promise((resolve) => setTimeout(resolve, 500))
    expect(received.filter((r) => r.path === '/refused')).toHaveLength(arrived.length)
    expect(arrived.map((a) => JSON.parse(a.body).data.object.balance)).toEqual([21])
  })

  it('retries a 500 about 5 s later with the same id, then succeeds; each attempt is logged', async () => {
    const { id } = await endpoint('/flaky', ['wallet.credited'])
    scripts.set('/flaky', [{ status: 500 }])
    await credit(2)
    const [first] = await arrivals('/flaky', 1)
    const deliveryOf = async () => (await t.request('GET', `/api/v1/webhookEndpoints/${id}/deliveries`)).body.data[0]
    // The attempt is recorded once its answer is read: polled.
    await expect.poll(async () => (await deliveryOf()).status).toBe('RETRYING')
    const delivery = await deliveryOf()
    expect(delivery).toMatchObject({ attempts: 1, lastStatusCode: 500 })
    const wait = Date.parse(delivery.nextAttemptAt) - clock.now().getTime()
    expect(wait).toBeGreaterThanOrEqual(4_500)
    expect(wait).toBeLessThanOrEqual(5_500)
    // Not due yet on the injected clock: nothing more arrives until it moves on.
    await new Promise((resolve) => setTimeout(resolve, 400))
    expect(received.filter((r) => r.path === '/flaky')).toHaveLength(1)
    clock.advance(6_000)
    const [, second] = await arrivals('/flaky', 2)
    expect(second!.headers['webhook-id']).toBe(first!.headers['webhook-id'])
    await expect.poll(async () => (await deliveryOf()).status).toBe('SUCCEEDED')
    const done = await deliveryOf()
    expect(done.attempts).toBe(2)
    expect(done.attemptLog.map((a: any) => a.statusCode)).toEqual([500, 200])
    expect(done.attemptLog[1].response).toBe('ok from the receiver')
  })

  it('signs with both secrets for a day after a rotation', async () => {
    const { id, secret: old } = await endpoint('/rotated', ['wallet.credited'])
    const rotated = await t.request('POST', `/api/v1/webhookEndpoints/${id}/rotateSecret`)
    expect(rotated.status).toBe(200)
    const fresh = rotated.body.secret as string
    expect(fresh).not.toBe(old)
    await credit(3)
    const [arrival] = await arrivals('/rotated', 1)
    const headers = arrival!.headers as Record<string, string>
    expect(headers['webhook-signature']!.split(' ')).toHaveLength(2)
    expect(new Webhook(fresh).verify(arrival!.body, headers)).toBeTruthy()
    expect(new Webhook(old).verify(arrival!.body, headers)).toBeTruthy()
  })

  it('sends the test event to the endpoint alone, and replays a time range with the same event ids', async () => {
    const { id } = await endpoint('/replayed', ['wallet.credited'])
    const other = await endpoint('/bystander', ['*'])
    const test = await t.request('POST', `/api/v1/webhookEndpoints/${id}/test`)
    expect(test.status).toBe(200)
    const [tested] = await arrivals('/replayed', 1)
    expect(JSON.parse(tested!.body)).toMatchObject({ id: test.body.event, type: 'webhook.test' })
    clock.advance(1000)
    const since = clock.now().toISOString()
    clock.advance(1000)
    await credit(4)
    const [, original] = await arrivals('/replayed', 2)
    clock.advance(1000)
    const replay = await t.request('POST', `/api/v1/webhookEndpoints/${id}/replay`, {
      since,
      until: clock.now().toISOString(),
      eventTypes: ['wallet.credited'],
    })
    expect(replay.body).toEqual({ deliveries: 1 })
    const [, , again] = await arrivals('/replayed', 3)
    expect(again!.headers['webhook-id']).toBe(original!.headers['webhook-id'])
    expect(received.filter((r) => r.path === '/bystander' && r.body.includes('"webhook.test"'))).toEqual([])
    await t.request('DELETE', `/api/v1/webhookEndpoints/${other.id}`)
  })

  it('disables an endpoint that answers 410, and tells the others', async () => {
    const { id } = await endpoint('/gone', ['wallet.credited'])
    const watcher = await endpoint('/watcher', ['webhook_endpoint.disabled'])
    scripts.set('/gone', [{ status: 410 }])
    await credit(5)
    await arrivals('/gone', 1)
    await expect
      .poll(async () => (await t.request('GET', `/api/v1/webhookEndpoints/${id}`)).body)
      .toMatchObject({ active: false, disabledReason: 'the endpoint answered 410 Gone' })
    const [told] = await arrivals('/watcher', 1)
    expect(JSON.parse(told!.body)).toMatchObject({
      type: 'webhook_endpoint.disabled',
      data: { object: { id, active: false } },
    })
    await t.request('DELETE', `/api/v1/webhookEndpoints/${watcher.id}`)
  })
})

describe('webhook endpoints', () => {
  it('refuses unknown event types and bad URLs; needs api.settings.manage to change, view to read', async () => {
    const unknown = await t.request('POST', '/api/v1/webhookEndpoints', {
      url: `${receiver.base}/x`,
      eventTypes: ['nope'],
    })
    expect(unknown.status).toBe(400)
    expect(unknown.body.details[0]).toMatchObject({ field: 'eventTypes' })
    const bad = await t.request('POST', '/api/v1/webhookEndpoints', { url: 'ftp://x', eventTypes: ['*'] })
    expect(bad.body).toMatchObject({ errorCode: 'WEBHOOK_URL_REFUSED', details: [{ field: 'url' }] })
    const viewer = await t.tokenWithRoles(['api.settings.view'])
    expect((await t.requestAs(viewer, 'GET', '/api/v1/webhookEndpoints')).status).toBe(200)
    const refused = await t.requestAs(viewer, 'POST', '/api/v1/webhookEndpoints', {
      url: `${receiver.base}/x`,
      eventTypes: ['*'],
    })
    expect(refused.status).toBe(403)
    expect(refused.body.message).toContain('api.settings.manage')
    const listed = await t.request('GET', '/api/v1/webhookEndpoints')
    expect(JSON.stringify(listed.body)).not.toContain('whsec_')
    expect((await t.request('GET', '/api/v1/webhookEndpoints/999999')).body.errorCode).toBe(
      'WEBHOOK_ENDPOINT_NOT_FOUND',
    )
  })

  it('lists events for api.audit.view, by type and aggregate', async () => {
    const events = await t.request('GET', '/api/v1/events?type=wallet.credited&limit=2')
    expect(events.status).toBe(200)
    expect(events.body.data).toHaveLength(2)
    const one = await t.request('GET', `/api/v1/events/${events.body.data[0].id}`)
    expect(one.body).toEqual(events.body.data[0])
    // Newest first, with the record's sequence increasing.
    const [newer, older] = events.body.data
    expect(newer.aggregate.sequence).toBeGreaterThan(older.aggregate.sequence)
    expect((await t.request('GET', '/api/v1/events/evt_NOPE')).body.errorCode).toBe('EVENT_NOT_FOUND')
    const noRole = await t.tokenWithRoles(['api.settings.view'])
    expect((await t.requestAs(noRole, 'GET', '/api/v1/events')).status).toBe(403)
  })

  it("runs the README's receiver: it verifies a delivery and refuses a forged one", async () => {
    const readme = fs.readFileSync(new URL('../../README.md', import.meta.url), 'utf8')
    const snippet = /### Webhooks[\s\S]*?```js\n([\s\S]*?)```/.exec(readme)![1]!
    const file = path.join(os.tmpdir(), `obol-receiver-${process.pid}.mjs`)
    fs.writeFileSync(file, snippet)
    const port = await new Promise<number>((resolve) => {
      const probe = net.createServer().listen(0, '127.0.0.1', () => {
        const free = (probe.address() as net.AddressInfo).port
        probe.close(() => resolve(free))
      })
    })
    const { id, secret } = await created(t, 'POST', '/api/v1/webhookEndpoints', {
      url: `http://127.0.0.1:${port}/obol`,
      eventTypes: ['wallet.credited'],
    })
    const child = spawn(process.execPath, [file], {
      env: { ...process.env, WEBHOOK_SECRET: secret, PORT: String(port) },
    })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
    try {
      await expect.poll(async () => (await fetch(`http://127.0.0.1:${port}/`).catch(() => undefined))?.status).toBe(400)
      expect((await credit(1)).status).toBe(201)
      await expect.poll(() => output, { timeout: 10_000 }).toMatch(/verified evt_\w+ wallet\.credited/)
      const deliveries = await t.request('GET', `/api/v1/webhookEndpoints/${id}/deliveries`)
      expect(deliveries.body.data[0]).toMatchObject({ status: 'SUCCEEDED', lastStatusCode: 204 })
      const forged = await fetch(`http://127.0.0.1:${port}/obol`, {
        method: 'POST',
        headers: {
          'webhook-id': 'evt_forged',
          'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
          'webhook-signature': 'v1,bm90IGEgc2lnbmF0dXJlIG9mIHRoaXMgYm9keSBhdCBhbGwhIQ==',
        },
        body: '{"type":"wallet.credited"}',
      })
      expect(forged.status).toBe(400)
      await expect.poll(() => output).toContain('refused evt_forged')
    } finally {
      child.kill()
      await t.request('DELETE', `/api/v1/webhookEndpoints/${id}`)
    }
  })
})
