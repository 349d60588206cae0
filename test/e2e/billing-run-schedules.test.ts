import { beforeAll, describe, expect, it } from 'vitest'
import { sql } from 'drizzle-orm'
import { rows } from '../../src/kernel/db/database.ts'
import { useTestApp } from '../support/test-app.ts'

const t = useTestApp()
const BASE = '/api/v1/billingRunSchedules'

/** Polls `done` (every 50 ms, for 15 s at most): for work the background timer does on its own. */
async function waitFor(done: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 15_000
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error('gave up waiting')
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}
const isoSeconds = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString()
const addDaysIso = (value: string, days: number) =>
  new Date(new Date(value).getTime() + days * 86_400_000).toISOString()

const monthly = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  repeats: 'MONTHLY',
  cron: { second: '0', minute: '0', hour: '0', dayOfMonth: '1' },
  billingCycleCodes: ['CYC_A', 'CYC_B'],
  ...extra,
})

async function create(body: Record<string, unknown>): Promise<Record<string, any>> {
  const response = await t.request('POST', BASE, body)
  expect(response.status, JSON.stringify(response.body)).toBe(201)
  return response.body as Record<string, any>
}

/** Makes a schedule due now, as if its timer time had come while no instance was polling. */
async function makeDue(code: string, due: string) {
  await t.db.current.db.execute(
    sql`update billing_run_schedule set next_fire_date = ${due}::timestamptz where code = ${code}`,
  )
}

async function firingsOf(code: string) {
  return rows<{ trigger: string; fire_time: string; runs: number }>(
    t.db.current.db,
    sql`select f.trigger, to_char(f.fire_time at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as fire_time,
        (select count(*)::int from billing_run r where r.firing_id = f.id) as runs
      from billing_run_schedule_firing f join billing_run_schedule s on s.id = f.schedule_id
      where s.code = ${code} order by f.fire_time`,
  )
}

beforeAll(async () => {
  const setup: [string, Record<string, unknown>][] = [
    ['calendars', { code: 'CAL_M', calendarType: 'PERIOD', periodUnit: 'MONTH', periodLength: 1 }],
    [
      'billingCycles',
      {
        code: 'CYC_A',
        calendar: 'CAL_M',
        invoiceDateDelay: 2,
        lastTransactionDateDelay: -1,
        ignoreOrders: true,
        dateAggregation: 'MONTH',
      },
    ],
    ['billingCycles', { code: 'CYC_B', calendar: 'CAL_M', disableAggregation: true, discountAggregation: false }],
  ]
  for (const [path, body] of setup) {
    const response = await t.request('POST', `/api/v1/${path}`, body)
    expect(response.status, JSON.stringify(response.body)).toBe(201)
  }
})

describe('billing cycles carry aggregation rules and date expressions', () => {
  it('reads back the rules with their defaults and refuses unknown values', async () => {
    const a = await t.request('GET', '/api/v1/billingCycles/CYC_A')
    expect(a.body).toMatchObject({
      invoiceDateDelay: 2,
      lastTransactionDateDelay: -1,
      ignoreOrders: true,
      ignoreSubscriptions: false,
      dateAggregation: 'MONTH',
      discountAggregation: true,
      disableAggregation: false,
    })
    const bad = await t.request('PUT', '/api/v1/billingCycles/CYC_A', {
      dateAggregation: 'YEAR',
      lastTransactionDateDelay: 999,
    })
    expect(bad.status).toBe(400)
    expect(bad.body.details.map((d: { field: string }) => d.field).sort()).toEqual([
      'dateAggregation',
      'lastTransactionDateDelay',
    ])
  })
})

describe('billing run schedules: create and read', () => {
  it('creates a recurring schedule and reads back every field, its status and its timer', async () => {
    const created = await create(
      monthly('MONTHLY_RUN', {
        startDate: '2030-01-15T00:00:00.000Z',
        endDate: '2031-01-01',
        processType: 'FULL_AUTOMATIC',
        rejectAutoAction: 'MOVE',
        suspectAutoAction: 'AUTOMATIC_VALIDATION',
        generateAO: true,
        computeDatesAtValidation: true,
        invoiceDate: '2030-02-03',
      }),
    )
    expect(created).toMatchObject({
      code: 'MONTHLY_RUN',
      name: 'MONTHLY_RUN',
      repeats: 'MONTHLY',
      cron: { second: '0', minute: '0', hour: '0', dayOfMonth: '1' },
      startDate: '2030-01-15T00:00:00.000Z',
      endDate: '2031-01-01T00:00:00.000Z',
      billingCycleCodes: ['CYC_A', 'CYC_B'],
      processType: 'FULL_AUTOMATIC',
      lastTransactionDate: null,
      invoiceDate: '2030-02-03T00:00:00.000Z',
      rejectAutoAction: 'MOVE',
      suspectAutoAction: 'AUTOMATIC_VALIDATION',
      generateAO: true,
      computeDatesAtValidation: true,
      active: true,
      status: 'ACTIVE',
      nextFireDate: '2030-02-01T00:00:00.000Z',
      lastFireDate: null,
      createdBillingRuns: [],
    })
    expect(created.id).toEqual(expect.any(Number))
    expect(created.auditable.creator).toBe('service-account-test-admin')
    expect((await t.request('GET', `${BASE}/MONTHLY_RUN`)).body).toEqual(created)
    const list = await t.request('GET', `${BASE}?limit=50`)
    expect(list.status).toBe(200)
    expect(list.body).toMatchObject({ offset: 0, limit: 50 })
    expect(list.body.data.map((s: { code: string }) => s.code)).toContain('MONTHLY_RUN')
  })

  it('computes firing times in the tenant time zone', async () => {
    await t.request('PUT', '/api/v1/tenantSettings', { timeZone: 'Europe/Paris' })
    try {
      const last = await create(
        monthly('PARIS_LAST', { cron: { dayOfMonth: 'Last', hour: '23' }, startDate: '2030-03-15' }),
      )
      expect(last.startDate).toBe('2030-03-14T23:00:00.000Z')
      expect(last.nextFireDate).toBe('2030-03-31T21:00:00.000Z')
      const tuesday = await create(
        monthly('PARIS_2ND_TUE', { cron: { dayOfMonth: '2nd Tue', hour: '9', minute: '30' }, startDate: '2030-01-01' }),
      )
      // 8 January 2030 is the 2nd Tuesday (1 January is a Tuesday); 09:30 in Paris is 08:30 UTC in winter.
      expect(tuesday.nextFireDate).toBe('2030-01-08T08:30:00.000Z')
      const once = await create({
        name: 'PARIS_ONCE',
        repeats: 'NONE',
        startDate: '2030-07-01T06:00:00',
        billingCycleCodes: ['CYC_A'],
      })
      expect(once).toMatchObject({ startDate: '2030-07-01T04:00:00.000Z', nextFireDate: '2030-07-01T04:00:00.000Z' })
    } finally {
      await t.request('PUT', '/api/v1/tenantSettings', { timeZone: 'UTC' })
    }
  })

  it('recomputes the next firing of active schedules when the tenant time zone changes', async () => {
    const moving = await create(
      monthly('TZ_MOVING', { cron: { dayOfMonth: '2nd Tue', hour: '9', minute: '30' }, startDate: '2030-01-01' }),
    )
    expect(moving.nextFireDate).toBe('2030-01-08T09:30:00.000Z')
    await t.request('PUT', '/api/v1/tenantSettings', { timeZone: 'Europe/Paris' })
    try {
      // 09:30 in Paris is 08:30 UTC in winter.
      expect((await t.request('GET', `${BASE}/TZ_MOVING`)).body.nextFireDate).toBe('2030-01-08T08:30:00.000Z')
    } finally {
      await t.request('PUT', '/api/v1/tenantSettings', { timeZone: 'UTC' })
    }
    expect((await t.request('GET', `${BASE}/TZ_MOVING`)).body.nextFireDate).toBe('2030-01-08T09:30:00.000Z')
    expect((await t.request('DELETE', `${BASE}/TZ_MOVING`)).status).toBeLessThan(300)
  })

  it('creates a schedule PAUSED, without a next firing, when active is false', async () => {
    const paused = await create(monthly('PAUSED_AT_START', { active: false }))
    expect(paused).toMatchObject({ status: 'PAUSED', active: false, nextFireDate: null })
  })

  it.each<[string, Record<string, unknown>, number, string, string?]>([
    ['a blank name', monthly('  '), 400, 'MISSING_NAME', 'name'],
    ['no name', { ...monthly('X'), name: undefined }, 400, 'MISSING_NAME', 'name'],
    [
      'empty billing cycles',
      monthly('E1', { billingCycleCodes: [] }),
      400,
      'MISSING_BILLING_CYCLES',
      'billingCycleCodes',
    ],
    ['no billing cycles', { ...monthly('E2'), billingCycleCodes: undefined }, 400, 'MISSING_BILLING_CYCLES'],
    ['an unknown repeats', monthly('E3', { repeats: 'HOURLY' }), 400, 'INVALID_REPEATS', 'repeats'],
    ['an unknown processType', monthly('E4', { processType: 'LAZY' }), 400, 'INVALID_PROCESS_TYPE', 'processType'],
    [
      'an unknown rejectAutoAction',
      monthly('E5', { rejectAutoAction: 'DROP' }),
      400,
      'INVALID_AUTO_ACTION',
      'rejectAutoAction',
    ],
    [
      'an unknown suspectAutoAction',
      monthly('E6', { suspectAutoAction: 'X' }),
      400,
      'INVALID_AUTO_ACTION',
      'suspectAutoAction',
    ],
    ['an invalid cron hour', monthly('E7', { cron: { hour: '24' } }), 400, 'INVALID_CRON', 'cron.hour'],
    [
      'an invalid cron day of week',
      monthly('E8', { cron: { dayOfWeek: 'Funday' } }),
      400,
      'INVALID_CRON',
      'cron.dayOfWeek',
    ],
    [
      'an increment on day of month',
      monthly('E9', { cron: { dayOfMonth: '1/2' } }),
      400,
      'INVALID_CRON',
      'cron.dayOfMonth',
    ],
    ['a cron value that is not a string', monthly('E10', { cron: { second: 5 } }), 400, 'INVALID_CRON', 'cron.second'],
    ['an unknown cron field', monthly('E11', { cron: { days: '1' } }), 400, 'VALIDATION_FAILED', 'cron.days'],
    [
      'unknown billing cycles',
      monthly('E12', { billingCycleCodes: ['CYC_A', 'NOPE'] }),
      400,
      'VALIDATION_FAILED',
      'billingCycleCodes[1]',
    ],
    ['an unknown field', monthly('E13', { colour: 'red' }), 400, 'VALIDATION_FAILED', 'colour'],
    ['recurring without cron', { ...monthly('E14'), cron: undefined }, 400, 'VALIDATION_FAILED', 'cron'],
    [
      'one-time with a cron',
      monthly('E15', { repeats: 'NONE', startDate: '2031-01-01' }),
      400,
      'VALIDATION_FAILED',
      'cron',
    ],
    [
      'one-time in the past',
      { name: 'E16', repeats: 'NONE', startDate: '2020-01-01', billingCycleCodes: ['CYC_A'] },
      400,
      'VALIDATION_FAILED',
      'startDate',
    ],
    [
      'one-time without startDate',
      { name: 'E17', repeats: 'NONE', billingCycleCodes: ['CYC_A'] },
      400,
      'VALIDATION_FAILED',
      'startDate',
    ],
    ['a malformed date', monthly('E18', { endDate: '31/12/2030' }), 400, 'VALIDATION_FAILED', 'endDate'],
    [
      'an end before the start',
      monthly('E19', { startDate: '2031-01-01', endDate: '2030-01-01' }),
      400,
      'VALIDATION_FAILED',
      'endDate',
    ],
    ['a name that cannot be a code', monthly('Monthly run'), 400, 'VALIDATION_FAILED', 'name'],
    ['a wrong type', monthly('E20', { generateAO: 'yes' }), 400, 'VALIDATION_FAILED', 'generateAO'],
  ])('refuses %s', async (_title, body, status, errorCode, field) => {
    const response = await t.request('POST', BASE, body)
    expect(response.status, JSON.stringify(response.body)).toBe(status)
    expect(response.body).toMatchObject({ status: 'FAIL', errorCode })
    if (field) expect(response.body.details.map((d: { field: string }) => d.field)).toContain(field)
    const code = typeof body.name === 'string' ? body.name.trim() : ''
    if (code) expect((await t.request('GET', `${BASE}/${encodeURIComponent(code)}`)).status).toBe(404)
  })

  it.each(['second', 'minute', 'hour', 'dayOfMonth', 'month', 'dayOfWeek', 'year'])(
    'refuses an empty cron %s (or blanks) with INVALID_CRON naming it, on create and on PUT',
    async (field) => {
      for (const empty of ['', '  ']) {
        const name = `EMPTY_${field}_${empty.length}`
        const response = await t.request('POST', BASE, monthly(name, { cron: { [field]: empty } }))
        expect(response.status, JSON.stringify(response.body)).toBe(400)
        expect(response.body).toMatchObject({ errorCode: 'INVALID_CRON' })
        expect(response.body.details[0]).toMatchObject({ field: `cron.${field}` })
        expect(response.body.details[0].message).toContain('is empty')
        expect((await t.request('GET', `${BASE}/${name}`)).status).toBe(404)
      }
      const code = `EMPTY_PUT_${field}`
      const before = await create(monthly(code, { startDate: '2030-01-15' }))
      const refused = await t.request('PUT', `${BASE}/${code}`, { cron: { ...before.cron, [field]: '' } })
      expect(refused.status, JSON.stringify(refused.body)).toBe(400)
      expect(refused.body).toMatchObject({ errorCode: 'INVALID_CRON', details: [{ field: `cron.${field}` }] })
      expect((await t.request('GET', `${BASE}/${code}`)).body).toEqual(before)
    },
  )

  it('refuses a second schedule with the same name (409 SCHEDULE_EXISTS), also when requests race', async () => {
    await create(monthly('DUPLICATE'))
    const again = await t.request('POST', BASE, monthly('DUPLICATE'))
    expect(again.status).toBe(409)
    expect(again.body).toMatchObject({ errorCode: 'SCHEDULE_EXISTS' })
    const raced = await Promise.all([1, 2, 3].map(() => t.request('POST', BASE, monthly('RACED'))))
    expect(raced.map((r) => r.status).sort()).toEqual([201, 409, 409])
  })

  it('answers 404 SCHEDULE_NOT_FOUND for an unknown code on every route', async () => {
    for (const [method, path, body] of [
      ['GET', '', undefined],
      ['PUT', '', { processType: 'MANUAL' }],
      ['DELETE', '', undefined],
      ['POST', '/pause', undefined],
      ['POST', '/resume', undefined],
      ['POST', '/runNow', undefined],
    ] as const) {
      const response = await t.request(method, `${BASE}/NO_SUCH${path}`, body)
      expect(response.status, `${method} ${path}`).toBe(404)
      expect(response.body.errorCode).toBe('SCHEDULE_NOT_FOUND')
    }
  })
})

describe('billing run schedules: the list', () => {
  it('returns every schedule by default (130 and more), and pages only when asked', async () => {
    for (let i = 0; i < 130; i++) await create(monthly(`LIST_${String(i).padStart(3, '0')}`))
    const all = await t.request('GET', BASE)
    expect(all.status).toBe(200)
    expect(all.body.total).toBeGreaterThanOrEqual(130)
    expect(all.body.data).toHaveLength(all.body.total)
    expect(all.body).not.toHaveProperty('limit')
    const codes = all.body.data.map((s: { code: string }) => s.code)
    expect(codes.filter((c: string) => c.startsWith('LIST_'))).toHaveLength(130)
    expect([...codes].sort()).toEqual(codes)
    const page = await t.request('GET', `${BASE}?offset=100&limit=20`)
    expect(page.body).toMatchObject({ total: all.body.total, offset: 100, limit: 20 })
    expect(page.body.data.map((s: { code: string }) => s.code)).toEqual(codes.slice(100, 120))
  })
})

describe('billing run schedules: update, states and actions', () => {
  it('updates partially and recomputes the next firing', async () => {
    await create(monthly('PARTIAL', { startDate: '2030-01-15', processType: 'MANUAL', generateAO: true }))
    const updated = await t.request('PUT', `${BASE}/PARTIAL`, { cron: { dayOfMonth: '-3', hour: '6' } })
    expect(updated.status, JSON.stringify(updated.body)).toBe(200)
    // 31 January 2030 minus 3 days.
    expect(updated.body).toMatchObject({
      nextFireDate: '2030-01-28T06:00:00.000Z',
      processType: 'MANUAL',
      generateAO: true,
      billingCycleCodes: ['CYC_A', 'CYC_B'],
      repeats: 'MONTHLY',
    })
    expect(updated.body.auditable.updated).not.toBeNull()
    const cycles = await t.request('PUT', `${BASE}/PARTIAL`, { billingCycleCodes: ['CYC_B'], repeats: 'WEEKLY' })
    expect(cycles.body).toMatchObject({
      billingCycleCodes: ['CYC_B'],
      repeats: 'WEEKLY',
      nextFireDate: '2030-01-28T06:00:00.000Z',
    })
    const year = await t.request('PUT', `${BASE}/PARTIAL`, {
      cron: { dayOfMonth: '29', month: 'Feb', year: '2030-2040' },
    })
    expect(year.body.nextFireDate).toBe('2032-02-29T00:00:00.000Z')
    for (const [body, errorCode] of [
      [{ billingCycleCodes: [] }, 'MISSING_BILLING_CYCLES'],
      [{ repeats: 'YEARLY' }, 'INVALID_REPEATS'],
      [{ processType: null }, 'INVALID_PROCESS_TYPE'],
      [{ rejectAutoAction: 'LATER' }, 'INVALID_AUTO_ACTION'],
      [{ cron: { minute: '61' } }, 'INVALID_CRON'],
      [{ name: 'RENAMED' }, 'VALIDATION_FAILED'],
      [{ billingCycleCodes: ['NOPE'] }, 'VALIDATION_FAILED'],
    ] as const) {
      const refused = await t.request('PUT', `${BASE}/PARTIAL`, body)
      expect(refused.status, JSON.stringify(body)).toBe(400)
      expect(refused.body.errorCode).toBe(errorCode)
    }
    expect((await t.request('GET', `${BASE}/PARTIAL`)).body).toEqual(year.body)
  })

  it('accepts its own name sent back in a PUT and refuses a rename naming the field', async () => {
    await create(monthly('NAMED', { startDate: '2030-01-15' }))
    const same = await t.request('PUT', `${BASE}/NAMED`, { name: 'NAMED', processType: 'MANUAL' })
    expect(same.status, JSON.stringify(same.body)).toBe(200)
    expect(same.body).toMatchObject({ code: 'NAMED', name: 'NAMED', processType: 'MANUAL' })
    const rename = await t.request('PUT', `${BASE}/NAMED`, { name: 'OTHER', processType: 'AUTOMATIC' })
    expect(rename.status).toBe(400)
    expect(rename.body.details).toEqual([{ field: 'name', message: 'expected NAMED: a schedule cannot be renamed' }])
    expect((await t.request('GET', `${BASE}/NAMED`)).body.processType).toBe('MANUAL')
  })

  it('pauses and resumes idempotently; a paused schedule has no next firing', async () => {
    await create(monthly('PAUSABLE', { startDate: '2030-01-15' }))
    const paused = await t.request('POST', `${BASE}/PAUSABLE/pause`)
    expect(paused.status).toBe(200)
    expect(paused.body).toMatchObject({ status: 'PAUSED', active: false, nextFireDate: null })
    const again = await t.request('POST', `${BASE}/PAUSABLE/pause`)
    expect(again.status).toBe(200)
    expect(again.body).toEqual(paused.body)
    const resumed = await t.request('POST', `${BASE}/PAUSABLE/resume`)
    expect(resumed.body).toMatchObject({ status: 'ACTIVE', active: true, nextFireDate: '2030-02-01T00:00:00.000Z' })
    const resumedAgain = await t.request('POST', `${BASE}/PAUSABLE/resume`)
    expect(resumedAgain.status).toBe(200)
    expect(resumedAgain.body).toEqual(resumed.body)
    const viaPut = await t.request('PUT', `${BASE}/PAUSABLE`, { active: false })
    expect(viaPut.body).toMatchObject({ status: 'PAUSED', nextFireDate: null })
  })

  it('fires a one-time schedule exactly once at its start date, then it is COMPLETED and frozen', async () => {
    const startDate = isoSeconds(Date.now() + 60_000)
    const once = await create({ name: 'ONE_TIME', repeats: 'NONE', startDate, billingCycleCodes: ['CYC_A', 'CYC_B'] })
    expect(once).toMatchObject({ status: 'ACTIVE', nextFireDate: startDate, cron: null })
    expect(await t.app.billingRunTimer.tick()).toBe(0)
    // Time passes: the start date is now behind us.
    const past = isoSeconds(Date.now() - 1000)
    await t.db.current.db.execute(
      sql`update billing_run_schedule set start_date = ${past}::timestamptz, next_fire_date = ${past}::timestamptz where code = 'ONE_TIME'`,
    )
    expect(await t.app.billingRunTimer.tick()).toBe(1)
    expect(await t.app.billingRunTimer.tick()).toBe(0)
    const done = (await t.request('GET', `${BASE}/ONE_TIME`)).body
    expect(done).toMatchObject({ status: 'COMPLETED', active: false, nextFireDate: null, lastFireDate: past })
    expect(done.createdBillingRuns).toHaveLength(2)
    expect(await firingsOf('ONE_TIME')).toEqual([{ trigger: 'TIMER', fire_time: past, runs: 2 }])

    const put = await t.request('PUT', `${BASE}/ONE_TIME`, { processType: 'MANUAL' })
    expect(put.status).toBe(409)
    expect((await t.request('POST', `${BASE}/ONE_TIME/resume`)).status).toBe(409)
    expect((await t.request('POST', `${BASE}/ONE_TIME/pause`)).status).toBe(409)
    const runNow = await t.request('POST', `${BASE}/ONE_TIME/runNow`)
    expect(runNow.status).toBe(200)
    expect(runNow.body.schedule.status).toBe('COMPLETED')
  })

  it('runs a firing missed while no instance ran once, not once per missed time', async () => {
    await create(monthly('HOURLY', { cron: { minute: '0', hour: '*' } }))
    const due = isoSeconds(Date.now() - 3 * 86_400_000)
    await makeDue('HOURLY', due)
    expect(await t.app.billingRunTimer.tick()).toBe(1)
    expect(await t.app.billingRunTimer.tick()).toBe(0)
    expect(await firingsOf('HOURLY')).toEqual([{ trigger: 'TIMER', fire_time: due, runs: 2 }])
    const after = (await t.request('GET', `${BASE}/HOURLY`)).body
    expect(after.status).toBe('ACTIVE')
    expect(after.lastFireDate).toBe(due)
    expect(new Date(after.nextFireDate).getTime()).toBeGreaterThan(Date.now())
    expect(new Date(after.nextFireDate).getTime()).toBeLessThanOrEqual(Date.now() + 3_600_000)
  })

  it('does not fire a paused schedule, and completes it once its end date has passed', async () => {
    await create(monthly('ENDING', { cron: { minute: '*', hour: '*' }, endDate: isoSeconds(Date.now() + 3_600_000) }))
    await t.request('POST', `${BASE}/ENDING/pause`)
    await makeDue('ENDING', isoSeconds(Date.now() - 60_000))
    await t.app.billingRunTimer.tick()
    expect(await firingsOf('ENDING')).toEqual([])
    await t.db.current.db.execute(
      sql`update billing_run_schedule set end_date = now() - interval '1 minute' where code = 'ENDING'`,
    )
    await t.app.billingRunTimer.tick()
    expect((await t.request('GET', `${BASE}/ENDING`)).body).toMatchObject({ status: 'COMPLETED', nextFireDate: null })
    expect((await t.request('POST', `${BASE}/ENDING/resume`)).status).toBe(409)
  })

  it('completes an active recurring schedule at its last firing before the end date', async () => {
    const end = Date.now() + 3_600_000
    await create(monthly('LAST_FIRING', { cron: { minute: '*', hour: '*' }, endDate: isoSeconds(end) }))
    await t.db.current.db.execute(
      sql`update billing_run_schedule set end_date = date_trunc('minute', now()) + interval '59 seconds', next_fire_date = now() - interval '1 second' where code = 'LAST_FIRING'`,
    )
    expect(await t.app.billingRunTimer.tick()).toBe(1)
    expect((await t.request('GET', `${BASE}/LAST_FIRING`)).body).toMatchObject({
      status: 'COMPLETED',
      nextFireDate: null,
    })
  })

  it('runNow fires whatever the state, without changing the state or the timer', async () => {
    const paused = await create(
      monthly('RUN_NOW', { active: false, processType: 'MANUAL', rejectAutoAction: 'CANCEL', generateAO: true }),
    )
    const fired = await t.request('POST', `${BASE}/RUN_NOW/runNow`)
    expect(fired.status, JSON.stringify(fired.body)).toBe(200)
    const { schedule, billingRuns } = fired.body
    expect(schedule).toMatchObject({ status: 'PAUSED', nextFireDate: null })
    expect(schedule.lastFireDate).not.toBeNull()
    expect(schedule.createdBillingRuns).toEqual(billingRuns.map((r: { id: number }) => r.id))
    expect(billingRuns).toHaveLength(2)
    const [a, b] = billingRuns
    const common = {
      status: 'NEW',
      processType: 'MANUAL',
      rejectAutoAction: 'CANCEL',
      suspectAutoAction: null,
      generateAO: true,
      computeDatesAtValidation: false,
      scheduleCode: 'RUN_NOW',
    }
    expect(a).toMatchObject({
      ...common,
      billingCycle: 'CYC_A',
      ignoreOrders: true,
      dateAggregation: 'MONTH',
      disableAggregation: false,
    })
    expect(b).toMatchObject({
      ...common,
      billingCycle: 'CYC_B',
      ignoreOrders: false,
      dateAggregation: 'NONE',
      disableAggregation: true,
      discountAggregation: false,
    })
    // Dates come from each cycle: CYC_A invoices 2 days after the firing and bills up to the day before; CYC_B the same day.
    const fireTime = a.fireTime as string
    expect(a.invoiceDate).toBe(addDaysIso(fireTime, 2))
    expect(a.lastTransactionDate).toBe(addDaysIso(fireTime, -1))
    expect(b.invoiceDate).toBe(b.fireTime)
    expect(b.lastTransactionDate).toBe(b.fireTime)

    const active = await create(
      monthly('RUN_NOW_ACTIVE', { startDate: '2030-01-15', invoiceDate: '2030-02-03T10:00:00.000Z' }),
    )
    const firedActive = await t.request('POST', `${BASE}/RUN_NOW_ACTIVE/runNow`)
    expect(firedActive.body.schedule).toMatchObject({ status: 'ACTIVE', nextFireDate: active.nextFireDate })
    expect(firedActive.body.billingRuns.map((r: { invoiceDate: string }) => r.invoiceDate)).toEqual([
      '2030-02-03T10:00:00.000Z',
      '2030-02-03T10:00:00.000Z',
    ])
    expect(paused.createdBillingRuns).toEqual([])
  })

  it('deletes a schedule; the bill runs it created stay and keep its code', async () => {
    await create(monthly('DOOMED'))
    const fired = await t.request('POST', `${BASE}/DOOMED/runNow`)
    const ids = fired.body.billingRuns.map((r: { id: number }) => r.id)
    const deleted = await t.request('DELETE', `${BASE}/DOOMED`)
    expect(deleted.status).toBe(204)
    expect((await t.request('GET', `${BASE}/DOOMED`)).status).toBe(404)
    const runs = await t.request('GET', '/api/v1/billingRuns?scheduleCode=DOOMED')
    expect(runs.body.data.map((r: { id: number }) => r.id).sort()).toEqual(ids.sort())
    // The name is free again, with a clean history.
    expect((await create(monthly('DOOMED'))).createdBillingRuns).toEqual([])
  })

  it('keeps a billing cycle used by a schedule from being deleted', async () => {
    const refused = await t.request('DELETE', '/api/v1/billingCycles/CYC_B')
    expect(refused.status).toBe(409)
    expect(refused.body.errorCode).toBe('ENTITY_IN_USE')
  })
})

describe('the schedule timer', () => {
  it('fires a schedule every second, one bill run per cycle per firing, then completes it at its end', async () => {
    const start = Math.ceil(Date.now() / 1000) * 1000 + 1000
    await create(
      monthly('EVERY_SECOND', {
        cron: { second: '*', minute: '*', hour: '*' },
        startDate: isoSeconds(start),
        endDate: isoSeconds(start + 2000),
      }),
    )
    // A real wait by design: a schedule is due when its next_fire_date has passed on the database clock (`now()`),
    // which no injected clock moves. The test polls until the third firing completes the schedule, not a fixed time.
    void t.app.billingRunTimer.start()
    try {
      await waitFor(async () => (await t.request('GET', `${BASE}/EVERY_SECOND`)).body.status === 'COMPLETED')
    } finally {
      await t.app.billingRunTimer.stop()
    }
    const firings = await firingsOf('EVERY_SECOND')
    expect(firings.map((f) => f.fire_time)).toEqual([
      isoSeconds(start),
      isoSeconds(start + 1000),
      isoSeconds(start + 2000),
    ])
    expect(firings.every((f) => f.runs === 2)).toBe(true)
    expect((await t.request('GET', `${BASE}/EVERY_SECOND`)).body.status).toBe('COMPLETED')
  })
})

describe('bill runs', () => {
  it('creates a one-off bill run with its own aggregation rules and the cycle for the rest', async () => {
    const created = await t.request('POST', '/api/v1/billingRuns', {
      billingCycle: 'CYC_A',
      description: 'Catch-up run',
      invoiceDate: '2030-05-01',
      ignoreOrders: false,
      dateAggregation: 'DAY',
      suspectAutoAction: 'MANUAL_ACTION',
    })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    expect(created.body).toMatchObject({
      status: 'NEW',
      billingCycle: 'CYC_A',
      description: 'Catch-up run',
      processType: 'AUTOMATIC',
      invoiceDate: '2030-05-01T00:00:00.000Z',
      ignoreOrders: false,
      dateAggregation: 'DAY',
      ignoreSubscriptions: false,
      discountAggregation: true,
      suspectAutoAction: 'MANUAL_ACTION',
      scheduleCode: null,
      fireTime: null,
    })
    expect(created.body.lastTransactionDate).toBe(addDaysIso(created.body.processDate, -1))
    expect((await t.request('GET', `/api/v1/billingRuns/${created.body.id}`)).body).toEqual(created.body)
    expect((await t.request('GET', '/api/v1/billingRuns/999999')).status).toBe(404)

    for (const [body, errorCode, field] of [
      [{ billingCycle: 'NOPE' }, 'VALIDATION_FAILED', 'billingCycle'],
      [{}, 'VALIDATION_FAILED', 'billingCycle'],
      [{ billingCycle: 'CYC_A', processType: 'SOON' }, 'INVALID_PROCESS_TYPE', 'processType'],
      [{ billingCycle: 'CYC_A', rejectAutoAction: 'NO' }, 'INVALID_AUTO_ACTION', 'rejectAutoAction'],
      [{ billingCycle: 'CYC_A', dateAggregation: 'YEAR' }, 'VALIDATION_FAILED', 'dateAggregation'],
      [{ billingCycle: 'CYC_A', invoiceDate: 'tomorrow' }, 'VALIDATION_FAILED', 'invoiceDate'],
      [{ billingCycle: 'CYC_A', scheduleCode: 'X' }, 'VALIDATION_FAILED', 'scheduleCode'],
    ] as const) {
      const refused = await t.request('POST', '/api/v1/billingRuns', body)
      expect(refused.status, JSON.stringify(body)).toBe(400)
      expect(refused.body.errorCode).toBe(errorCode)
      expect(refused.body.details.map((d: { field: string }) => d.field)).toContain(field)
    }
  })

  it('lists bill runs newest first, filtered and paginated', async () => {
    const all = await t.request('GET', '/api/v1/billingRuns?limit=1000')
    expect(all.status).toBe(200)
    expect(all.body.total).toBe(all.body.data.length)
    const ids = all.body.data.map((r: { id: number }) => r.id)
    expect(ids).toEqual([...ids].sort((x: number, y: number) => y - x))
    const byCycle = await t.request('GET', '/api/v1/billingRuns?billingCycle=CYC_B&limit=2&offset=1')
    expect(byCycle.body.limit).toBe(2)
    expect(byCycle.body.data.every((r: { billingCycle: string }) => r.billingCycle === 'CYC_B')).toBe(true)
    const bySchedule = await t.request('GET', '/api/v1/billingRuns?scheduleCode=RUN_NOW')
    expect(bySchedule.body.total).toBe(2)
    // The chain moves runs on by itself (an empty cycle's run is VALIDATED at once): no run of the schedule is CANCELLED.
    expect((await t.request('GET', '/api/v1/billingRuns?scheduleCode=RUN_NOW&status=CANCELLED')).body.total).toBe(0)
    expect((await t.request('GET', '/api/v1/billingRuns?colour=red')).status).toBe(400)
  })

  it('are readable through the Query API as billingRun', async () => {
    const count = await t.request('GET', '/api/v1/query/billingRun/count')
    expect(count.status, JSON.stringify(count.body)).toBe(200)
    expect(count.body.total).toBe((await t.request('GET', '/api/v1/billingRuns')).body.total)
    const filters = encodeURIComponent(JSON.stringify({ scheduleCode: 'RUN_NOW' }))
    const list = await t.request('GET', `/api/v1/query/billingRun?filters=${filters}&nested=billingCycle`)
    expect(list.status, JSON.stringify(list.body)).toBe(200)
    expect(list.body.total).toBe(2)
    expect(list.body.data.map((r: { billingCycle: { code: string } }) => r.billingCycle.code).sort()).toEqual([
      'CYC_A',
      'CYC_B',
    ])
    expect(list.body.data[0]).toMatchObject({ scheduleCode: 'RUN_NOW', processType: 'MANUAL' })
  })
})

describe('roles', () => {
  it('guards every billing run route: 401 without a token, 403 naming the role without it', async () => {
    const noRoles = await t.tokenWithRoles([])
    const routes = t.app.policies.filter((e) => /^\/api\/v1\/billingRun/.test(e.url))
    expect(routes.map((e) => `${e.method} ${e.url}`).sort()).toEqual([
      'DELETE /api/v1/billingRunSchedules/:code',
      'GET /api/v1/billingRunSchedules',
      'GET /api/v1/billingRunSchedules/:code',
      'GET /api/v1/billingRuns',
      'GET /api/v1/billingRuns/:id',
      'POST /api/v1/billingRunSchedules',
      'POST /api/v1/billingRunSchedules/:code/pause',
      'POST /api/v1/billingRunSchedules/:code/resume',
      'POST /api/v1/billingRunSchedules/:code/runNow',
      'POST /api/v1/billingRuns',
      'POST /api/v1/billingRuns/:id/advance',
      'POST /api/v1/billingRuns/:id/cancel',
      'PUT /api/v1/billingRunSchedules/:code',
    ])
    for (const entry of routes) {
      const role = (entry.policy as { role: string }).role
      expect(role).toBe(entry.method === 'GET' ? 'billing.billingRuns.view' : 'billing.billingRuns.manage')
      const url = entry.url.replace(':code', 'MONTHLY_RUN').replace(':id', '1')
      const body = ['POST', 'PUT'].includes(entry.method) ? {} : undefined
      expect((await t.requestAs(undefined, entry.method, url, body)).status, `${entry.method} ${url}`).toBe(401)
      const forbidden = await t.requestAs(noRoles, entry.method, url, body)
      expect(forbidden.status, `${entry.method} ${url}`).toBe(403)
      expect(forbidden.body.message).toContain(role)
    }
  })

  it('needs billing.billingRuns.view to read and billing.billingRuns.manage to write or run', async () => {
    const viewer = await t.tokenWithRoles(['billing.billingRuns.view'])
    const manager = await t.tokenWithRoles(['billing.billingRuns.manage'])
    expect((await t.requestAs(viewer, 'GET', BASE)).status).toBe(200)
    expect((await t.requestAs(viewer, 'GET', '/api/v1/billingRuns')).status).toBe(200)
    const forbidden = await t.requestAs(viewer, 'POST', `${BASE}/MONTHLY_RUN/runNow`)
    expect(forbidden.status).toBe(403)
    expect(forbidden.body.message).toContain('billing.billingRuns.manage')
    expect((await t.requestAs(viewer, 'POST', BASE, monthly('BY_VIEWER'))).status).toBe(403)
    expect((await t.requestAs(manager, 'GET', BASE)).status).toBe(403)
    expect((await t.requestAs(manager, 'POST', BASE, monthly('BY_MANAGER'))).status).toBe(201)
    expect((await t.requestAs(manager, 'POST', `${BASE}/BY_MANAGER/pause`)).status).toBe(200)
    expect((await t.requestAs(undefined, 'GET', BASE)).status).toBe(401)
  })
})
