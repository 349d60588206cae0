import { setTimeout as delay } from 'node:timers/promises'
import { beforeAll, describe, expect, it } from 'vitest'
import { forgetTenantSettings } from '../../src/kernel/settings.ts'
import { seedDemo } from '../../src/seed.ts'
import { useTestApp } from '../support/test-app.ts'
import { useWebhookReceiver } from '../support/webhook-receiver.ts'

// An Expert run watched as it goes: its rows so far, other requests answered while it streams (on PGlite, between
// the batches of its cursor), a cancel taking effect at the next batch, the row cap said in words, and the
// `workbench.expert_run.finished` event of every ending.
const t = useTestApp({ env: { WEBHOOK_PRIVATE_TARGETS: 'allow' } })
const receiver = useWebhookReceiver()
let expert = ''

const execute = (body: unknown) => t.requestAs(expert, 'POST', '/api/v1/workbench/expert/execute', body)
const record = async (id: number): Promise<Record<string, any>> => {
  const res = await t.requestAs(expert, 'GET', `/api/v1/workbench/expert/executions/${id}`)
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  return res.body as Record<string, any>
}

async function submitted(body: unknown): Promise<number> {
  const res = await execute(body)
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  return res.body.queryExecutionResultId as number
}

/** Polls the record (as the screen does) until `done` holds; the run goes on in the background. */
async function until(id: number, done: (run: Record<string, any>) => boolean): Promise<Record<string, any>> {
  for (let i = 0; i < 3000; i++) {
    const run = await record(id)
    if (done(run)) return run
    await delay(10)
  }
  throw new Error(`Expert execution ${id} never reached the state waited for`)
}

const setGovernor = async (values: Record<string, number>) => {
  const res = await t.request('PUT', '/api/v1/tenantSettings', { workbench: { governor: values } })
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  forgetTenantSettings(t.db.current.db)
}

beforeAll(async () => {
  await seedDemo(t.db.current.db)
  expert = await t.tokenWithRoles(['queryUser', 'queryExpert'])
  await t.request('POST', '/api/v1/webhookEndpoints', {
    url: `${receiver.base}/expert`,
    eventTypes: ['workbench.expert_run.finished'],
  })
})

describe('Expert: a long run that never blocks', () => {
  it('shows its rows so far, lets a customer list answer while it streams, and stops at the next batch on cancel', async () => {
    const total = 3_000_000
    await setGovernor({ maxRowsSync: total, maxRowsAsync: total, maxExportMegabytes: 1024 })
    try {
      const id = await submitted({ query: `select generate_series(1, ${total}) as n` })
      // Running (no status, no end), rows already written: the cursor is being read in batches.
      const streaming = await until(id, (run) => run.status === null && (run.rowsSoFar ?? 0) > 0)
      expect(streaming).toMatchObject({ endDate: null, lineCount: null, truncated: false, truncatedMessage: null })
      // Another request is answered between two batches, while the run is still going.
      const customers = await t.request('GET', '/api/v1/query/customer?limit=20')
      expect(customers.status).toBe(200)
      expect(customers.body.data.length).toBeGreaterThan(0)
      const meanwhile = await record(id)
      expect(meanwhile.status).toBeNull()
      expect(meanwhile.rowsSoFar).toBeGreaterThanOrEqual(streaming.rowsSoFar)
      expect(meanwhile.rowsSoFar).toBeLessThan(total)
      // A cancel ends it at its next batch: CANCELLED, far short of its rows, no file.
      const cancel = await t.requestAs(expert, 'DELETE', `/api/v1/workbench/expert/executions/${id}`)
      expect(cancel.status, JSON.stringify(cancel.body)).toBe(202)
      const ended = await until(id, (run) => run.endDate !== null)
      expect(ended).toMatchObject({ status: 'CANCELLED', filePath: null, truncated: false })
    } finally {
      await setGovernor({ maxRowsSync: 1000, maxRowsAsync: 1_000_000 })
    }
  })
})

describe('Expert: the row cap said in words', () => {
  it('says the result stopped at the cap, and which settings raise it; not when the query asked for fewer', async () => {
    const capped = await until(await submitted({ query: 'select generate_series(1, 5000) as n' }), (run) =>
      Boolean(run.endDate),
    )
    expect(capped).toMatchObject({ status: 'SUCCESS', lineCount: 1000, rowsSoFar: 1000, truncated: true })
    expect(capped.truncatedMessage).toContain('row cap of 1000 rows')
    expect(capped.truncatedMessage).toContain('workbench.governor.maxRowsSync')
    expect(capped.truncatedMessage).toContain('workbench.governor.maxRowsAsync')

    const asked = await until(await submitted({ query: 'select generate_series(1, 5000) as n', limit: 10 }), (run) =>
      Boolean(run.endDate),
    )
    expect(asked).toMatchObject({ status: 'SUCCESS', lineCount: 10, truncated: false, truncatedMessage: null })

    const small = await until(await submitted({ query: 'select generate_series(1, 50) as n' }), (run) =>
      Boolean(run.endDate),
    )
    expect(small).toMatchObject({ status: 'SUCCESS', lineCount: 50, truncated: false, truncatedMessage: null })
  })
})

describe('Expert: workbench.expert_run.finished', () => {
  it('reports each run that ends, succeeded, failed or cancelled, as its resource shows it', async () => {
    const succeeded = await submitted({ query: 'select 1 as one' })
    const failed = await submitted({ query: 'select 1 / 0 as boom' })
    await until(succeeded, (run) => Boolean(run.endDate))
    await until(failed, (run) => Boolean(run.endDate))
    await setGovernor({ maxRowsSync: 3_000_000, maxRowsAsync: 3_000_000, maxExportMegabytes: 1024 })
    let cancelled = 0
    try {
      cancelled = await submitted({ query: 'select generate_series(1, 3000000) as n' })
      await until(cancelled, (run) => run.status === null && (run.rowsSoFar ?? 0) > 0)
      expect((await t.requestAs(expert, 'DELETE', `/api/v1/workbench/expert/executions/${cancelled}`)).status).toBe(202)
      await until(cancelled, (run) => Boolean(run.endDate))
    } finally {
      await setGovernor({ maxRowsSync: 1000, maxRowsAsync: 1_000_000 })
    }
    const finishedOf = (id: number) =>
      receiver.received.map((r) => JSON.parse(r.body)).filter((e) => e.aggregate.id === String(id))
    await expect
      .poll(() => [succeeded, failed, cancelled].every((id) => finishedOf(id).length > 0), { timeout: 15_000 })
      .toBe(true)
    for (const [id, status] of [
      [succeeded, 'SUCCESS'],
      [failed, 'FAILED'],
      [cancelled, 'CANCELLED'],
    ] as const) {
      const [event, ...more] = finishedOf(id)
      expect(more).toEqual([])
      expect(event).toMatchObject({
        type: 'workbench.expert_run.finished',
        aggregate: { type: 'expert_run', id: String(id), sequence: 1 },
        data: { object: { id, status } },
      })
      expect(event.data.object).toEqual(await record(id))
    }
  })
})
