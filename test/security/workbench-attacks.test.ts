import fs from 'node:fs'
import path from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { sql } from 'drizzle-orm'
import { beforeAll, describe, expect, it } from 'vitest'
import { FakeClock } from '../../src/kernel/clock.ts'
import { rows } from '../../src/kernel/db/database.ts'
import { forgetTenantSettings } from '../../src/kernel/settings.ts'
import { expertExportPurgeJob, expertScheduledQueryJob } from '../../src/modules/workbench/index.ts'
import { seedDemo } from '../../src/seed.ts'
import { useTestApp } from '../support/test-app.ts'

// The workbench attacks of the third security round, replayed: native SQL without queryExpert through a schedule
// left by a deleted query, a query manager rewriting someone's scheduled native query and downloading its result,
// a revoked queryExpert whose schedule kept running, unpaged and unbounded saved queries, the Expert row cap
// bypassed by the statement, an export of 200 MB, and database messages (data) in job errors.

const clock = new FakeClock('2026-12-01T09:00:00Z')
const t = useTestApp({ clock, jobTypes: [expertExportPurgeJob, expertScheduledQueryJob] })
const db = () => t.db.current.db

let clients = 0
/** A client in a group of its own holding `roles`: its token, its group (to change its roles) and its user name. */
async function caller(roles: string[], sellerCodes: string[] | null = null) {
  const group = `attack-group-${++clients}`
  expect((await t.request('POST', '/api/v1/groups', { name: group, roles, sellerCodes })).status).toBe(201)
  const client = await t.request('POST', '/api/v1/clients', { clientId: `${group}-client`, groups: [group] })
  expect(client.status).toBe(201)
  const issued = await t.app.server.inject({
    method: 'POST',
    url: '/auth/realms/obol/protocol/openid-connect/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: client.body.clientId as string,
      client_secret: client.body.clientSecret as string,
    }).toString(),
  })
  const token = issued.json<{ access_token: string }>().access_token
  const session = await t.requestAs(token, 'GET', '/api/v1/auth/session')
  return { token, group, username: session.body.username as string }
}

const nextMinute = () => clock.advance(60_000)

const saveNative = (token: string, code: string, queryText: string) =>
  t.requestAs(token, 'POST', '/api/v1/workbench/queries', {
    code,
    visibility: 'PRIVATE',
    queryType: 'NATIVE_SQL',
    queryText,
  })

const saveHql = (token: string, code: string, queryText = 'select s.code from Seller s') =>
  t.requestAs(token, 'POST', '/api/v1/workbench/queries', { code, visibility: 'PRIVATE', queryType: 'HQL', queryText })

const saveReport = (token: string, code: string) =>
  t.requestAs(token, 'POST', '/api/v1/reportQueries', {
    code,
    targetEntity: 'Seller',
    visibility: 'PRIVATE',
    advancedQuery: { genericFields: ['code'] },
  })

/** A schedule that fires once a year: a test makes it due by moving its stored time (due timers use `now()`). */
const yearly = { cron: { second: '0', minute: '0', hour: '3', dayOfMonth: '1', month: '1' } }

async function fireNow(queryCode: string): Promise<void> {
  await db().execute(sql`update job_instance set next_fire_at = now() - interval '1 second'
    where code = ${`ExpertQuery:${queryCode}`}`)
}

/** The first execution of a schedule's job, once it has ended (the job runtime polls timers every 100 ms). */
async function firstFiring(queryCode: string): Promise<{ status: string; error: string | null }> {
  const url = `/api/v1/jobs/${encodeURIComponent(`ExpertQuery:${queryCode}`)}/executions`
  for (let i = 0; i < 1000; i++) {
    const page = await t.request('GET', url)
    expect(page.status, JSON.stringify(page.body)).toBe(200)
    const ended = (page.body.data as { status: string; error: string | null }[]).filter(
      (e) => e.status === 'SUCCESS' || e.status === 'FAILED',
    )
    if (ended.length > 0) return ended.at(-1)!
    await delay(20)
  }
  throw new Error(`the schedule of ${queryCode} never ran`)
}

async function finished(id: number, token: string): Promise<Record<string, any>> {
  for (let i = 0; i < 1500; i++) {
    const res = await t.requestAs(token, 'GET', `/api/v1/workbench/expert/executions/${id}`)
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    if (res.body.endDate !== null) return res.body as Record<string, any>
    await delay(20)
  }
  throw new Error(`Expert execution ${id} did not end`)
}

async function run(token: string, body: Record<string, unknown>): Promise<Record<string, any>> {
  nextMinute()
  const res = await t.requestAs(token, 'POST', '/api/v1/workbench/expert/execute', body)
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  return finished(res.body.queryExecutionResultId as number, token)
}

const setGovernor = async (values: Record<string, number>) => {
  const res = await t.request('PUT', '/api/v1/tenantSettings', { workbench: { governor: values } })
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  forgetTenantSettings(db())
}

const runsOf = (username: string) =>
  rows<{ id: number }>(db(), sql`select id from query_execution where username = ${username}`)

let expert: Awaited<ReturnType<typeof caller>>
let manager: Awaited<ReturnType<typeof caller>>

beforeAll(async () => {
  await seedDemo(db())
  expert = await caller(['queryUser', 'queryExpert'])
  manager = await caller(['queryUser', 'queryManagement'])
})

describe('native SQL only for queryExpert holders, on every path', () => {
  it('a deleted native query takes its schedule along: a queryUser saving under its code runs nothing as anyone', async () => {
    expect((await saveNative(expert.token, 'ORPHANED', 'select code from seller')).status).toBe(201)
    const put = await t.requestAs(expert.token, 'PUT', '/api/v1/workbench/queries/ORPHANED/schedule', yearly)
    expect(put.status, JSON.stringify(put.body)).toBe(200)
    expect((await t.request('GET', '/api/v1/jobs/ExpertQuery%3AORPHANED')).status).toBe(200)

    expect((await t.requestAs(expert.token, 'DELETE', '/api/v1/workbench/queries/ORPHANED')).status).toBe(204)
    expect((await t.request('GET', '/api/v1/jobs/ExpertQuery%3AORPHANED')).status).toBe(404)

    // A client restricted to seller MAIN, with queryUser only: it may not save native SQL at all.
    const attacker = await caller(['queryUser'], ['MAIN'])
    const saved = await saveNative(attacker.token, 'ORPHANED', 'select cast(email as integer) from customer')
    expect(saved.status).toBe(403)
    expect(saved.body.message).toContain('queryExpert')
    expect((await t.requestAs(attacker.token, 'GET', '/api/v1/workbench/queries/ORPHANED')).status).toBe(404)
    // A queryExpert holder saving a query under the code does not inherit a schedule either.
    const other = await caller(['queryUser', 'queryExpert'])
    expect((await saveNative(other.token, 'ORPHANED', 'select code from seller')).status).toBe(201)
    expect((await t.requestAs(other.token, 'GET', '/api/v1/workbench/queries/ORPHANED/schedule')).status).toBe(404)
    expect(await runsOf(attacker.username)).toEqual([])
    expect(await runsOf(other.username)).toEqual([])
  })

  it('a schedule left by an earlier version never runs the query saved again under its code', async () => {
    const newcomer = await caller(['queryUser', 'queryExpert'])
    expect((await saveNative(newcomer.token, 'LEFT_BEHIND', 'select code from seller')).status).toBe(201)
    // As a schedule orphaned before schedules named their query: due now, every second.
    await db()
      .execute(sql`insert into job_instance (code, description, job_type, parameters, timer, next_fire_at, creator)
      values ('ExpertQuery:LEFT_BEHIND', 'left behind', 'ExpertScheduledQueryJob', '{"queryCode":"LEFT_BEHIND"}'::jsonb,
        '{"second":"*","minute":"*","hour":"*"}'::jsonb, now() - interval '1 second', 'someone')`)
    const firing = await firstFiring('LEFT_BEHIND')
    expect(firing).toMatchObject({
      status: 'FAILED',
      error:
        'Scheduled Expert query LEFT_BEHIND was refused: the schedule was made for an earlier query saved under this code; its schedule is paused',
    })
    expect(await runsOf(newcomer.username)).toEqual([])
    expect((await t.request('GET', '/api/v1/jobs/ExpertQuery%3ALEFT_BEHIND')).body).toMatchObject({ active: false })
    const audit = await rows<{ status: string }>(
      db(),
      sql`select status from query_audit where username = ${newcomer.username} and mode = 'EXPERT'`,
    )
    expect(audit.length).toBeGreaterThan(0)
    expect(new Set(audit.map((entry) => entry.status))).toEqual(new Set(['REFUSED']))
    // Deleting the query deletes the schedule of its code.
    expect((await t.requestAs(newcomer.token, 'DELETE', '/api/v1/workbench/queries/LEFT_BEHIND')).status).toBe(204)
    expect((await t.request('GET', '/api/v1/jobs/ExpertQuery%3ALEFT_BEHIND')).status).toBe(404)
  })

  it('a query manager without queryExpert can neither rewrite a scheduled native query nor download its runs', async () => {
    const text = 'select code from seller order by code'
    expect((await saveNative(expert.token, 'MANAGED', text)).status).toBe(201)
    expect((await t.requestAs(expert.token, 'PUT', '/api/v1/workbench/queries/MANAGED/schedule', yearly)).status).toBe(
      200,
    )
    const rewrite = { queryText: 'select code, email from customer' }
    const put = await t.requestAs(manager.token, 'PUT', '/api/v1/workbench/queries/MANAGED', rewrite)
    expect(put.status).toBe(403)
    expect(put.body.message).toContain('queryExpert')
    const asReport = await t.requestAs(manager.token, 'PUT', '/api/v1/reportQueries/MANAGED', { description: 'mine' })
    expect(asReport.status).toBe(403)
    expect(asReport.body.error_code).toBe('forbidden')
    const replaced = await t.requestAs(manager.token, 'POST', '/api/v1/reportQueries/MANAGED', {
      targetEntity: 'Customer',
      visibility: 'PUBLIC',
      advancedQuery: { genericFields: ['code', 'email'] },
    })
    expect(replaced.status).toBe(403)
    expect((await t.requestAs(manager.token, 'PUT', '/api/v1/workbench/queries/MANAGED/schedule', yearly)).status).toBe(
      403,
    )
    const kept = await t.requestAs(expert.token, 'GET', '/api/v1/workbench/queries/MANAGED')
    expect(kept.body).toMatchObject({ queryType: 'NATIVE_SQL', queryText: text, description: null })

    // The owner's run: the manager sees its record, never its rows.
    const done = await run(expert.token, { savedQueryCode: 'MANAGED' })
    expect(done.status).toBe('SUCCESS')
    const file = `/api/v1/workbench/expert/executions/${done.id}/file`
    expect((await t.requestAs(manager.token, 'GET', `/api/v1/workbench/expert/executions/${done.id}`)).status).toBe(200)
    expect((await t.requestAs(manager.token, 'GET', file)).status).toBe(403)
    expect((await t.requestAs(expert.token, 'GET', file)).status).toBe(200)

    // Deleting another's native query is a query manager's right, and its schedule goes with it.
    expect((await t.requestAs(manager.token, 'DELETE', '/api/v1/workbench/queries/MANAGED')).status).toBe(204)
    expect((await t.request('GET', '/api/v1/jobs/ExpertQuery%3AMANAGED')).status).toBe(404)
  })

  it('a revoked queryExpert: the next scheduled run ends REFUSED, audited, and runs nothing', async () => {
    const owner = await caller(['queryUser', 'queryExpert'])
    expect((await saveNative(owner.token, 'REVOKED', 'select code from seller')).status).toBe(201)
    expect((await t.requestAs(owner.token, 'PUT', '/api/v1/workbench/queries/REVOKED/schedule', yearly)).status).toBe(
      200,
    )
    // The owner's token still carries queryExpert: the firing reads the owner's groups as they are now.
    expect((await t.request('PUT', `/api/v1/groups/${owner.group}`, { roles: ['queryUser'] })).status).toBe(200)
    await fireNow('REVOKED')
    expect(await firstFiring('REVOKED')).toMatchObject({
      status: 'FAILED',
      error: `Scheduled Expert query REVOKED was refused: its owner ${owner.username} no longer holds the role queryExpert; its schedule is paused`,
    })
    expect((await t.request('GET', '/api/v1/jobs/ExpertQuery%3AREVOKED')).body).toMatchObject({
      active: false,
      nextFireAt: null,
    })
    const audit = await rows<{ status: string; error_message: string }>(
      db(),
      sql`select status, error_message from query_audit where username = ${owner.username} and mode = 'EXPERT'`,
    )
    expect(audit).toEqual([
      { status: 'REFUSED', error_message: `its owner ${owner.username} no longer holds the role queryExpert` },
    ])
    expect(await runsOf(owner.username)).toEqual([])
  })
})

describe('bounded saved queries', () => {
  let lister: Awaited<ReturnType<typeof caller>>
  const code = (i: number) => `PAGE_${String(i).padStart(3, '0')}`

  it('300 saved queries are listed a page at a time: 100 by default, a larger page lowered to 1,000, visibility decided per caller', async () => {
    lister = await caller(['queryUser'])
    for (let i = 1; i <= 300; i++) expect((await saveHql(lister.token, code(i))).status).toBe(201)
    const first = await t.requestAs(lister.token, 'GET', '/api/v1/workbench/queries')
    expect(first.status).toBe(200)
    expect(first.headers['content-type']).toBe('application/json; charset=utf-8')
    expect(first.body).toMatchObject({ total: 300, offset: 0, limit: 100 })
    expect(first.body.data.map((q: { code: string }) => q.code)).toEqual(
      Array.from({ length: 100 }, (_, i) => code(i + 1)),
    )
    expect(first.body.data[0]).toEqual({
      code: 'PAGE_001',
      description: null,
      targetEntity: 'Seller',
      visibility: 'PRIVATE',
      tags: [],
      aliases: {},
      advancedQuery: null,
      queryText: 'select s.code from Seller s',
      queryType: 'HQL',
      system: false,
    })
    const rest = await t.requestAs(lister.token, 'GET', '/api/v1/workbench/queries?offset=100&limit=1000')
    expect(rest.body).toMatchObject({ total: 300, offset: 100, limit: 1000 })
    expect(rest.body.data.map((q: { code: string }) => q.code)).toEqual(
      Array.from({ length: 200 }, (_, i) => code(i + 101)),
    )
    // A larger page is lowered to 1000, as every list's (no page is ever larger).
    const capped = await t.requestAs(lister.token, 'GET', '/api/v1/workbench/queries?limit=1001')
    expect(capped.body).toMatchObject({ total: 300, offset: 0, limit: 1000 })
    expect(capped.body.data).toHaveLength(300)
    const native = await t.requestAs(lister.token, 'GET', '/api/v1/workbench/queries?queryType=NATIVE_SQL')
    expect(native.body).toMatchObject({ total: 0, data: [] })
    const stranger = await caller(['queryUser'])
    expect((await t.requestAs(stranger.token, 'GET', '/api/v1/workbench/queries')).body).toMatchObject({
      total: 0,
      data: [],
    })
    // A query manager sees everyone's, in the same pages.
    const all = await t.requestAs(manager.token, 'GET', '/api/v1/workbench/queries?queryType=HQL&limit=5')
    expect(all.body.total).toBeGreaterThanOrEqual(300)
  })

  it('the 501st saved query of a user is refused 409 naming the limit, report queries counted too, races included', async () => {
    for (let i = 301; i <= 400; i++) expect((await saveReport(lister.token, code(i))).status).toBe(201)
    for (let i = 401; i <= 499; i++) expect((await saveHql(lister.token, code(i))).status).toBe(201)
    // Five saves racing for the last place: exactly one gets it.
    const racing = await Promise.all(
      ['RACE_A', 'RACE_B', 'RACE_C', 'RACE_D', 'RACE_E'].map((raced) => saveHql(lister.token, raced)),
    )
    expect(racing.map((answer) => answer.status).sort()).toEqual([201, 409, 409, 409, 409])
    const refused = racing.find((answer) => answer.status === 409)!
    expect(refused.body).toMatchObject({ errorCode: 'SAVED_QUERY_LIMIT_REACHED' })
    expect(refused.body.message).toContain('At most 500 saved queries per user')
    const report = await saveReport(lister.token, 'ONE_TOO_MANY')
    expect(report.status).toBe(409)
    expect(report.body.error_code).toBe('resource-limit-reached')
    const owned = await rows<{ n: number }>(
      db(),
      sql`select count(*)::int as n from report_query where creator = ${lister.username}`,
    )
    expect(owned[0]!.n).toBe(500)
    // Another user is not affected; a deleted query frees a place.
    expect((await saveHql(expert.token, 'NOT_AFFECTED')).status).toBe(201)
    expect((await t.requestAs(lister.token, 'DELETE', `/api/v1/reportQueries/${code(301)}`)).status).toBe(204)
    expect((await saveReport(lister.token, 'ONE_TOO_MANY')).status).toBe(201)
  })

  it('a report query stores at most 20,000 characters of advancedQuery', async () => {
    const res = await t.requestAs(expert.token, 'POST', '/api/v1/reportQueries', {
      code: 'HUGE_FILTER',
      targetEntity: 'Seller',
      visibility: 'PRIVATE',
      advancedQuery: { filters: { 'inList code': Array.from({ length: 3000 }, (_, i) => `SELLER_${i}`) } },
    })
    expect(res.status).toBe(400)
    expect(res.body).toMatchObject({ error_code: 'invalid-parameter' })
    expect(res.body.message).toContain('20000 characters')
  })
})

describe('Expert caps that hold', () => {
  it.each([
    [
      'FETCH … WITH TIES',
      'select g / 100000 as k from generate_series(1, 5000) as g order by g / 100000 fetch first 1 rows with ties',
    ],
    ['OFFSET', 'select g from generate_series(1, 5000) as g offset 1'],
    ['a nested limit', 'select * from (select g from generate_series(1, 5000) as g limit 5000) as inner_rows'],
    ['UNION ALL', 'select g from generate_series(1, 3000) as g union all select g from generate_series(1, 3000) as g'],
    ['FETCH FIRST past the cap', 'select g from generate_series(1, 5000) as g fetch first 5000 rows only'],
  ])('the row cap holds against %s', async (_name, query) => {
    await setGovernor({ maxRowsSync: 10 })
    try {
      const done = await run(expert.token, { query })
      expect(done).toMatchObject({ status: 'SUCCESS', lineCount: 10 })
      const file = await t.requestAs(expert.token, 'GET', `/api/v1/workbench/expert/executions/${done.id}/file`)
      expect((file.body as string).trimEnd().split('\n')).toHaveLength(11)
    } finally {
      await setGovernor({ maxRowsSync: 1000 })
    }
  })

  it('a 200 MB export ends FAILED past the byte cap (1 MB here), names the cap and its setting, and keeps no file', async () => {
    await setGovernor({ maxExportMegabytes: 1 })
    try {
      const done = await run(expert.token, { query: "select repeat('x', 1000000) from generate_series(1, 200)" })
      expect(done).toMatchObject({ status: 'FAILED', filePath: null, lineCount: null })
      expect(done.errorMessage).toContain('1 MB')
      expect(done.errorMessage).toContain('workbench.governor.maxExportMegabytes')
      const file = await t.requestAs(expert.token, 'GET', `/api/v1/workbench/expert/executions/${done.id}/file`)
      expect(file.status).toBe(404)
      const written = fs.readdirSync(t.exportDir, { recursive: true }).map(String)
      expect(written.filter((name) => path.basename(name).startsWith(`expert-${done.id}.`))).toEqual([])
      // Under the cap, a run succeeds.
      const small = await run(expert.token, { query: "select repeat('x', 1000) from generate_series(1, 500)" })
      expect(small).toMatchObject({ status: 'SUCCESS', lineCount: 500 })
    } finally {
      await setGovernor({ maxExportMegabytes: 100 })
    }
  })
})

describe('no data in messages others read', () => {
  it("a failed scheduled run's job execution says only which run failed; the run keeps the database's message", async () => {
    const owner = await caller(['queryUser', 'queryExpert'])
    expect((await saveNative(owner.token, 'LEAKY', 'select cast(code as integer) from customer')).status).toBe(201)
    expect((await t.requestAs(owner.token, 'PUT', '/api/v1/workbench/queries/LEAKY/schedule', yearly)).status).toBe(200)
    await fireNow('LEAKY')
    const firing = await firstFiring('LEAKY')
    const [runRecord] = await rows<{ id: string | number }>(
      db(),
      sql`select id from query_execution where saved_query_code = 'LEAKY'`,
    )
    expect(firing).toMatchObject({ status: 'FAILED', error: `Expert execution ${Number(runRecord!.id)} failed` })
    // Any holder of api.jobs.view reads the same, and no customer code.
    const jobsViewer = await caller(['api.jobs.view'])
    const seen = await t.requestAs(jobsViewer.token, 'GET', '/api/v1/jobs/ExpertQuery%3ALEAKY/executions')
    expect(JSON.stringify(seen.body)).not.toMatch(/CUST|invalid input/)
    const detail = await finished(Number(runRecord!.id), owner.token)
    expect(detail.errorMessage).toMatch(/^invalid input syntax for type integer: "/)
    expect(detail.filePath).toBeNull()
  })

  it('run records name their file under the export root, never a server path, also through the Query API', async () => {
    const done = await run(expert.token, { query: 'select 1 as one' })
    expect(done.filePath).toMatch(
      new RegExp(`^exports/queryStudio/[^/]+/\\d{4}-\\d{2}-\\d{2}/expert-${done.id}\\.csv$`),
    )
    expect(done.filePath).not.toContain(t.exportDir)
    const listed = await t.requestAs(expert.token, 'GET', '/api/v1/workbench/expert/executions?limit=100')
    expect(JSON.stringify(listed.body)).not.toContain(t.exportDir)
    const entity = await t.requestAs(expert.token, 'GET', `/api/v1/query/queryExecution/${done.id}?fields=filePath`)
    expect(entity.body.data.filePath).toBe(done.filePath)
  })
})
