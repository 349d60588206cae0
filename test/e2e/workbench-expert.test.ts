import fs from 'node:fs'
import path from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { sql, type SQL } from 'drizzle-orm'
import pg from 'pg'
import { to as copyTo } from 'pg-copy-streams'
import { beforeAll, describe, expect, it } from 'vitest'
import { FakeClock } from '../../src/kernel/clock.ts'
import { rows } from '../../src/kernel/db/database.ts'
import { forgetTenantSettings } from '../../src/kernel/settings.ts'
import { expertExportPurgeJob, expertScheduledQueryJob } from '../../src/modules/workbench/index.ts'
import { seedDemo } from '../../src/seed.ts'
import { useTestApp } from '../support/test-app.ts'
import { onPostgres } from '../support/test-database.ts'

// Expert mode (native SQL to CSV): roles, the hostile battery, runs to CSV equal to COPY's, the record, the audit,
// the governor (per minute, at once per user, across racing requests), cancel, timeout, secrets, the sweep.

const clock = new FakeClock('2026-11-24T10:00:00Z')
const t = useTestApp({ clock, jobTypes: [expertExportPurgeJob, expertScheduledQueryJob] })
let expert = ''
let otherExpert = ''
let manager = ''

const execute = (body: unknown, token = expert) => t.requestAs(token, 'POST', '/api/v1/workbench/expert/execute', body)
const record = (id: number, token = expert) => t.requestAs(token, 'GET', `/api/v1/workbench/expert/executions/${id}`)

/** Polls the record (as a client does) until its end date is set; the run happens in the background. */
async function finished(id: number, token = expert): Promise<Record<string, any>> {
  for (let i = 0; i < 1500; i++) {
    const res = await record(id, token)
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    if (res.body.endDate !== null) return res.body as Record<string, any>
    await delay(20)
  }
  throw new Error(`Expert execution ${id} did not end`)
}

/**
 * The audit entries a query finds, once none is still SUBMITTED: a run's audit entry is closed just after its record
 * ends (a poll of the record can land in between).
 */
async function closedAudit<T extends { status: string }>(query: SQL): Promise<T[]> {
  for (let i = 0; i < 250; i++) {
    const found = await rows<T>(t.db.current.db, query)
    if (found.length > 0 && found.every((entry) => entry.status !== 'SUBMITTED')) return found
    await delay(20)
  }
  return rows<T>(t.db.current.db, query)
}

async function submitted(body: unknown, token = expert): Promise<number> {
  const res = await execute(body, token)
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  expect(res.body.status).toBe('ACCEPTED')
  return res.body.queryExecutionResultId as number
}

const setGovernor = async (values: Record<string, number>) => {
  const res = await t.request('PUT', '/api/v1/tenantSettings', { workbench: { governor: values } })
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  forgetTenantSettings(t.db.current.db)
}

/** PostgreSQL's own COPY of a statement, as the superuser: what the export must equal byte for byte. */
async function copyOf(statement: string): Promise<Buffer> {
  const text = `COPY (${statement}) TO STDOUT WITH (FORMAT csv, HEADER)`
  if (!onPostgres) {
    const result = await t.db.current.pglite!.query(text.replace('TO STDOUT', "TO '/dev/blob'"))
    return Buffer.from(await result.blob!.arrayBuffer())
  }
  const client = new pg.Client({ connectionString: t.db.url })
  await client.connect()
  try {
    const chunks: Buffer[] = []
    for await (const chunk of client.query(copyTo(text))) chunks.push(chunk as Buffer)
    return Buffer.concat(chunks)
  } finally {
    await client.end()
  }
}

const nextMinute = () => clock.advance(60_000)

/** The server's file of a run: its record names it under the export root. */
const fileOf = (run: Record<string, any>) => path.join(t.exportDir, run.filePath as string)

beforeAll(async () => {
  await seedDemo(t.db.current.db)
  expert = await t.tokenWithRoles(['queryUser', 'queryExpert'])
  otherExpert = await t.tokenWithRoles(['queryUser', 'queryExpert'])
  manager = await t.tokenWithRoles(['queryUser', 'queryManagement'])
})

describe('Expert mode: who may run it', () => {
  it('needs queryExpert and queryUser', async () => {
    const userOnly = await t.tokenWithRoles(['queryUser'])
    expect((await execute({ query: 'select 1' }, userOnly)).status).toBe(403)
    const expertOnly = await t.tokenWithRoles(['queryExpert'])
    const res = await execute({ query: 'select 1' }, expertOnly)
    expect(res.status).toBe(403)
    expect(res.body.message).toContain('queryUser')
    expect(
      (await t.requestAs(undefined, 'POST', '/api/v1/workbench/expert/execute', { query: 'select 1' })).status,
    ).toBe(401)
  })
})

describe('Expert mode: a run to CSV', () => {
  const query = 'select id, code, description, created, updated from customer order by code'

  it('answers ACCEPTED at once, then the record ends SUCCESS with its file, line count and duration', async () => {
    nextMinute()
    const id = await submitted({ query, format: 'CSV' })
    const done = await finished(id)
    expect(done).toMatchObject({
      id,
      status: 'SUCCESS',
      queryText: query,
      errorMessage: null,
      username: expect.any(String),
      queryHash: expect.stringMatching(/^[0-9a-f]{64}$/),
    })
    // Under the export root, never a server path.
    expect(done.filePath).toMatch(new RegExp(`^exports/queryStudio/[^/]+/2026-11-24/expert-${id}\\.csv$`))
    expect(done.startDate).toBe('2026-11-24T10:01:00.000Z')
    const customers = await rows<{ n: number }>(t.db.current.db, sql`select count(*)::int as n from customer`)
    expect(done.lineCount).toBe(customers[0]!.n)
    expect(done.durationMs).toBeGreaterThanOrEqual(0)

    const file = await t.app.server.inject({
      method: 'GET',
      url: `/api/v1/workbench/expert/executions/${id}/file`,
      headers: { authorization: `Bearer ${expert}` },
    })
    expect(file.statusCode).toBe(200)
    expect(file.headers['content-type']).toBe('text/csv; charset=utf-8')
    expect(file.headers['content-disposition']).toBe(`attachment; filename="expert-${id}.csv"`)
    // Byte for byte what PostgreSQL's COPY writes for the same statement (the row limit appended).
    expect(file.rawPayload.equals(await copyOf(`${query}\nLIMIT 1000`))).toBe(true)
    expect(file.rawPayload.toString().split('\n')[0]).toBe('id,code,description,created,updated')
  })

  it('appends the row limit, lowers a larger requested one to it, and takes a smaller one', async () => {
    nextMinute()
    await setGovernor({ maxRowsSync: 5 })
    try {
      const capped = await finished(await submitted({ query: 'select * from generate_series(1, 50) as n' }))
      expect(capped.lineCount).toBe(5)
      const asked = await finished(
        await submitted({ query: 'select * from generate_series(1, 50) as n limit 40', limit: 3 }),
      )
      expect(asked.lineCount).toBe(3)
      const small = await finished(await submitted({ query: 'select * from generate_series(1, 50) as n limit 2' }))
      expect(small.lineCount).toBe(2)
    } finally {
      await setGovernor({ maxRowsSync: 1000 })
    }
  })

  it('writes EXPLAIN plans as a one-column CSV', async () => {
    nextMinute()
    const done = await finished(await submitted({ query: 'explain select * from customer' }))
    expect(done.status).toBe('SUCCESS')
    const csv = fs.readFileSync(fileOf(done), 'utf8')
    expect(csv.split('\n')[0]).toBe('QUERY PLAN')
    expect(csv).toContain('Seq Scan on customer')
  })

  it('refuses a format other than CSV and a body with neither query nor savedQueryCode', async () => {
    nextMinute()
    const xml = await execute({ query: 'select 1', format: 'XML' })
    expect(xml.status).toBe(400)
    expect(xml.body.message).toContain('format')
    const none = await execute({ limit: 5 })
    expect(none.status).toBe(400)
    expect(none.body.message).toContain('query')
    expect((await execute({ query: 'select 1', limit: 0 })).status).toBe(400)
  })

  it('runs a saved NATIVE_SQL query by its code; a saved HQL one is refused', async () => {
    nextMinute()
    const saved = await t.requestAs(expert, 'POST', '/api/v1/workbench/queries', {
      code: 'EXPERT_SELLERS',
      visibility: 'PRIVATE',
      queryType: 'NATIVE_SQL',
      queryText: 'select code from seller order by code',
    })
    expect(saved.status, JSON.stringify(saved.body)).toBe(201)
    const done = await finished(await submitted({ savedQueryCode: 'EXPERT_SELLERS' }))
    expect(done).toMatchObject({ status: 'SUCCESS', savedQueryCode: 'EXPERT_SELLERS' })
    expect(fs.readFileSync(fileOf(done), 'utf8').split('\n')[0]).toBe('code')

    await t.requestAs(expert, 'POST', '/api/v1/workbench/queries', {
      code: 'DEEP_SELLERS',
      visibility: 'PRIVATE',
      queryType: 'HQL',
      queryText: 'from Seller',
    })
    const hql = await execute({ savedQueryCode: 'DEEP_SELLERS' })
    expect(hql.status).toBe(400)
    expect(hql.body.message).toContain('NATIVE_SQL')
    expect((await execute({ savedQueryCode: 'EXPERT_SELLERS' }, otherExpert)).status).toBe(404)
  })

  it('keeps the database message of a failed run for its owner', async () => {
    nextMinute()
    const done = await finished(await submitted({ query: 'select 1 / (select count(*) - count(*) from seller)' }))
    expect(done.status).toBe('FAILED')
    expect(done.errorMessage).toBe('division by zero')
    expect(done.filePath).toBeNull()
    const file = await t.requestAs(expert, 'GET', `/api/v1/workbench/expert/executions/${done.id}/file`)
    expect(file.status).toBe(404)
  })
})

describe('Expert mode: secrets are never data', () => {
  it('a query on the secrets schema passes validation but fails at run time: the query role has no grant', async () => {
    nextMinute()
    for (const table of ['obol_secrets.client_secret', 'obol_secrets.user_credential', 'obol_secrets.signing_key']) {
      const done = await finished(await submitted({ query: `select * from ${table}` }))
      expect(done.status).toBe('FAILED')
      expect(done.errorMessage).toBe('permission denied for schema obol_secrets')
    }
  })

  it("other users' query texts and the platform's own records are not readable: the Expert role has no grant", async () => {
    // Workbench audit and runs (anyone's SQL), saved reports, users, clients, jobs, settings, the migrations' list.
    const platform = [
      'query_execution',
      'query_audit',
      'report_query',
      'report_query_execution',
      'app_user',
      'oauth_client',
      'group_member',
      'job_instance',
      'job_execution',
      'app_instance',
      'tenant_setting',
      'obol_schema_migration',
      'obol_read_position',
    ]
    for (const table of platform) {
      nextMinute()
      const done = await finished(await submitted({ query: `select * from ${table}` }))
      expect(done, table).toMatchObject({ status: 'FAILED', errorMessage: `permission denied for table ${table}` })
      expect(done.filePath).toBeNull()
      const file = await t.requestAs(expert, 'GET', `/api/v1/workbench/expert/executions/${done.id}/file`)
      expect(file.status).toBe(404)
    }
    // The failure is kept for its owner only: another Expert user does not see the run at all.
    nextMinute()
    const own = await finished(await submitted({ query: 'select query_text from query_audit' }))
    expect((await record(own.id, otherExpert)).status).toBe(404)
  })

  it('the Expert role reads exactly the billing data: customers, wallet operations, the catalog, reference data', async () => {
    nextMinute()
    const query = `select count(*) as n from wallet_operation w, customer c, charge_template ct, trading_currency tc,
      seller s where false`
    const done = await finished(await submitted({ query }))
    expect(done).toMatchObject({ status: 'SUCCESS', lineCount: 1, errorMessage: null })
    // Its grants, listed by the database: SELECT on the registry's queryable entities less the platform's records.
    const granted = await rows<{ table: string; privilege: string }>(
      t.db.current.db,
      sql`select table_schema || '.' || table_name as table, privilege_type as privilege
        from information_schema.role_table_grants where grantee = 'obol_expert' order by 1, 2`,
    )
    expect(new Set(granted.map((g) => g.privilege))).toEqual(new Set(['SELECT']))
    const tables = granted.map((g) => g.table)
    expect(tables).toContain('public.wallet_operation')
    expect(tables).toContain('public.charge_template')
    for (const table of ['query_execution', 'query_audit', 'report_query', 'app_user', 'oauth_client', 'job_instance'])
      expect(tables).not.toContain(`public.${table}`)
    expect(tables.filter((name) => !name.startsWith('public.'))).toEqual([])
  })

  it('and the bookkeeping tables outside the registry are not readable either', async () => {
    nextMinute()
    const done = await finished(await submitted({ query: 'select * from workbench_usage' }))
    expect(done.status).toBe('FAILED')
    expect(done.errorMessage).toBe('permission denied for table workbench_usage')
  })
})

describe('Expert mode: the hostile battery', () => {
  const hostile: [string, string][] = [
    ['delete from customer', 'SELECT, WITH or EXPLAIN'],
    ['update customer set name = 1', 'SELECT, WITH or EXPLAIN'],
    ['with gone as (delete from customer returning *) select * from gone', 'DELETE'],
    ['WITH x AS (INSERT INTO seller (code) VALUES (1) RETURNING id) SELECT * FROM x', 'INSERT'],
    ['with x as (update customer set name = name returning id) select 1', 'UPDATE'],
    ['select * from customer for update', 'UPDATE'],
    ['select * from customer for share', 'lock rows'],
    ['select * from customer for no key update', 'UPDATE'],
    ['select * into evil from customer', 'SELECT INTO'],
    ['select 1; select 2', ';'],
    ['select 1;', ';'],
    ['select 1 -- comment', 'comments'],
    ['select /* comment */ 1', 'comments'],
    ['select * from pg_catalog.pg_authid', 'system catalogs not permitted'],
    ['select * from pg_class', 'system catalogs not permitted'],
    ['select * from "pg_catalog"."pg_class"', 'system catalogs not permitted'],
    ['select * from PG_CATALOG.PG_ROLES', 'system catalogs not permitted'],
    ['select * from information_schema.tables', 'system catalogs not permitted'],
    ['select * from "information_schema"."columns"', 'system catalogs not permitted'],
    ['select * from U&"pg\\005fclass"', 'system catalogs not permitted'],
    ['select * from U&"\\0070g_class"', 'system catalogs not permitted'],
    ['select * from "PG_CLASS"', 'system catalogs not permitted'],
    ['select pg_sleep(10)', 'system catalogs not permitted'],
    ["select pg_read_file('/etc/passwd')", 'system catalogs not permitted'],
    ['select pg_terminate_backend(1)', 'system catalogs not permitted'],
    ['select lo_import($$/etc/passwd$$)', '$'],
    ["select lo_import('/etc/passwd')", 'lo_import'],
    ["select dblink('host=x', 'select 1')", 'dblink'],
    ["select set_config('role', 'postgres', false)", 'set_config'],
    ["select nextval('customer_id_seq')", 'nextval'],
    ["select current_setting('data_directory')", 'current_setting'],
    ["select 'x'::regclass", 'regclass'],
    ["select * from customer where name = E'\\''", 'prefixed string literals'],
    ['select $1', '$'],
    ['SeLeCt 1 UnIoN sElEcT 1; DrOp TaBlE customer', ';'],
    ['select 1 from customer where 1 = (select 1 from customer for update)', 'UPDATE'],
    ['explain analyze delete from customer', 'DELETE'],
    ['explain analyse select pg_sleep(5)', 'system catalogs not permitted'],
    ['select exec from customer', 'EXEC'],
    ['call something()', 'SELECT, WITH or EXPLAIN'],
    ['copy customer to stdout', 'SELECT, WITH or EXPLAIN'],
    ['select * from otherdb.public.customer', 'another database'],
    ['select 1 as "a"; drop table x', ';'],
    ['select ＤＥＬＥＴＥ from customer', 'outside ASCII'],
    ['select\u00a01 from customer', 'outside ASCII'],
    ['select * from pg\u200b_class', 'outside ASCII'],
    ['select * from customer where code = (select 1 limit 1) union select * from customer for update', 'UPDATE'],
    ['select * from customer c, lateral (select 1 for key share) x', 'lock rows'],
    ['table customer', 'SELECT, WITH or EXPLAIN'],
    ['values (1)', 'SELECT, WITH or EXPLAIN'],
    ['', 'query'],
    ['select txid_current()', 'txid_current'],
    ['select * from generate_series(1,3) g, lateral (select pg_advisory_lock(1)) x', 'system catalogs'],
    ['select * from customer tablesample system (10)', 'RangeTableSample'],
    ["select xmlparse(document '<a/>')", 'XmlExpr'],
  ]

  it.each(hostile)('refuses %s with 400 INVALID_QUERY', async (text, expected) => {
    nextMinute()
    const res = await execute({ query: text })
    expect(res.status, JSON.stringify(res.body)).toBe(400)
    expect(res.body.errorCode ?? res.body.code).toMatch(/INVALID_QUERY|MISSING_PARAMETER/)
    expect(res.body.message).toContain(expected)
  })

  it('accepts forbidden words inside literals and quoted identifiers, and columns such as created or updated', async () => {
    nextMinute()
    const done = await finished(
      await submitted({
        query: `select 'delete; drop -- /*' as "update", created, updated from customer where code <> 'pg_class' limit 1`,
      }),
    )
    expect(done.status).toBe('SUCCESS')
    expect(fs.readFileSync(fileOf(done), 'utf8').split('\n')[0]).toBe('update,created,updated')
  })

  it('gives the line and column of the offending token', async () => {
    nextMinute()
    const res = await execute({ query: 'select code\nfrom customer\nwhere 1 = 1 -- x' })
    expect(res.status).toBe(400)
    expect(res.body).toMatchObject({ line: 3, column: 13 })
  })

  it('audits refused texts too (mode EXPERT, status REFUSED)', async () => {
    nextMinute()
    await execute({ query: 'select * from pg_shadow' })
    const audit = await rows<{ status: string; error_message: string }>(
      t.db.current.db,
      sql`select status, error_message from query_audit where query_text = 'select * from pg_shadow' and mode = 'EXPERT'`,
    )
    expect(audit).toEqual([{ status: 'REFUSED', error_message: 'system catalogs not permitted' }])
  })
})

describe('Expert mode: records, audit, visibility', () => {
  it('audits the submission and the result of every run', async () => {
    nextMinute()
    const text = 'select code from seller -- audited'.replace(' -- audited', ' where true')
    const done = await finished(await submitted({ query: text }))
    const audit = await closedAudit<{ status: string; row_count: number; mode: string; query_hash: string }>(
      sql`select status, row_count, mode, query_hash from query_audit where query_text = ${text}`,
    )
    expect(audit).toEqual([
      { status: 'SUCCESS', row_count: done.lineCount, mode: 'EXPERT', query_hash: done.queryHash },
    ])
  })

  it('lists the caller’s runs newest first, paged; others’ runs are 404 except to query managers', async () => {
    nextMinute()
    const mine = await t.requestAs(expert, 'GET', '/api/v1/workbench/expert/executions?limit=2')
    expect(mine.status).toBe(200)
    expect(mine.body.data).toHaveLength(2)
    expect(mine.body.total).toBeGreaterThan(2)
    expect(mine.body.data[0].id).toBeGreaterThan(mine.body.data[1].id)
    const second = await t.requestAs(expert, 'GET', '/api/v1/workbench/expert/executions?limit=1&offset=1')
    expect(second.body.data[0].id).toBe(mine.body.data[1].id)
    const id = mine.body.data[0].id as number

    const theirs = await t.requestAs(otherExpert, 'GET', '/api/v1/workbench/expert/executions')
    expect(theirs.body).toMatchObject({ total: 0, data: [] })
    expect((await record(id, otherExpert)).status).toBe(404)
    expect((await t.requestAs(otherExpert, 'GET', `/api/v1/workbench/expert/executions/${id}/file`)).status).toBe(404)
    expect((await t.requestAs(otherExpert, 'DELETE', `/api/v1/workbench/expert/executions/${id}`)).status).toBe(404)
    expect((await record(id, manager)).status).toBe(200)
    expect((await record(999_999)).status).toBe(404)
    expect((await t.requestAs(expert, 'GET', '/api/v1/workbench/expert/executions/abc')).status).toBe(400)
  })

  it('are Query API records (queryExecution) of their owner', async () => {
    const res = await t.requestAs(expert, 'GET', '/api/v1/query/queryExecution?limit=1000')
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.data.length).toBeGreaterThan(0)
    const other = await t.requestAs(otherExpert, 'GET', '/api/v1/query/queryExecution')
    expect(other.body.data).toEqual([])
  })

  it('cancelling a run that has ended is 409', async () => {
    nextMinute()
    const done = await finished(await submitted({ query: 'select 1 as one' }))
    const res = await t.requestAs(expert, 'DELETE', `/api/v1/workbench/expert/executions/${done.id}`)
    expect(res.status).toBe(409)
    expect((await record(done.id)).body.status).toBe('SUCCESS')
  })

  it('the stale-instance sweep ends FAILED the runs of an instance that died mid-export', async () => {
    await t.db.current.db.execute(sql`insert into query_execution (username, start_date, query_hash, query_text,
        statement_text, app_instance_id, running_since)
      values ('someone', now(), 'h', 'select 1', 'select 1', 'dead-instance', now())`)
    await t.jobs.reapDeadInstances()
    const left = await rows<{ status: string; error_message: string; ended: boolean }>(
      t.db.current.db,
      sql`select status, error_message, end_date is not null as ended from query_execution where app_instance_id = 'dead-instance'`,
    )
    expect(left).toEqual([
      { status: 'FAILED', error_message: 'the instance running this query stopped before it finished', ended: true },
    ])
  })

  it('the sweep leaves queued a run a dead instance submitted but no worker had started', async () => {
    // Its message is still in the job queue: another instance takes it, so it is not ended FAILED.
    await t.db.current.db.execute(sql`insert into query_execution (username, start_date, query_hash, query_text,
        statement_text, app_instance_id)
      values ('someone', now(), 'h', 'select 2', 'select 2', 'dead-submitter')`)
    await t.jobs.reapDeadInstances()
    const left = await rows<{ status: string | null; ended: boolean }>(
      t.db.current.db,
      sql`select status, end_date is not null as ended from query_execution where app_instance_id = 'dead-submitter'`,
    )
    expect(left).toEqual([{ status: null, ended: false }])
  })
})

describe('Expert mode: scheduled queries', () => {
  it('a saved NATIVE_SQL query with a schedule runs as its owner at its cadence, each run a QueryExecution', async () => {
    nextMinute()
    const saved = await t.requestAs(expert, 'POST', '/api/v1/workbench/queries', {
      code: 'EXPERT_NIGHTLY',
      visibility: 'PUBLIC',
      queryType: 'NATIVE_SQL',
      queryText: 'select code from seller order by code',
    })
    expect(saved.status, JSON.stringify(saved.body)).toBe(201)
    const url = '/api/v1/workbench/queries/EXPERT_NIGHTLY/schedule'
    expect((await t.requestAs(expert, 'GET', url)).status).toBe(404)
    const bad = await t.requestAs(expert, 'PUT', url, { cron: { hour: '25' } })
    expect(bad.status).toBe(400)
    expect(bad.body.errorCode).toBe('INVALID_CRON')
    // Someone else may see the query but not schedule it under its owner's identity.
    expect((await t.requestAs(otherExpert, 'PUT', url, { cron: { hour: '2' } })).status).toBe(403)
    expect(
      (await t.requestAs(expert, 'PUT', '/api/v1/workbench/queries/DEEP_SELLERS/schedule', { cron: {} })).status,
    ).toBe(400)

    const put = await t.requestAs(expert, 'PUT', url, { cron: { second: '*', minute: '*', hour: '*' } })
    expect(put.status, JSON.stringify(put.body)).toBe(200)
    expect(put.body).toMatchObject({ queryCode: 'EXPERT_NIGHTLY', cron: { second: '*' }, lastFireDate: null })
    expect(put.body.nextFireDate).toMatch(/Z$/)

    let runs: Record<string, any>[] = []
    for (let i = 0; i < 500 && !runs.some((r) => r.status === 'SUCCESS'); i++) {
      await delay(20)
      runs = (await t.requestAs(expert, 'GET', '/api/v1/workbench/expert/executions?limit=100')).body.data.filter(
        (r: Record<string, any>) => r.savedQueryCode === 'EXPERT_NIGHTLY',
      )
    }
    const done = runs.find((r) => r.status === 'SUCCESS')!
    expect(done).toBeDefined()
    expect(done.filePath).toMatch(/^exports\/queryStudio\//)
    expect(fs.readFileSync(fileOf(done), 'utf8').split('\n')[0]).toBe('code')

    expect((await t.requestAs(expert, 'DELETE', url)).status).toBe(204)
    expect((await t.requestAs(expert, 'GET', url)).status).toBe(404)
    expect((await t.requestAs(expert, 'DELETE', url)).status).toBe(404)
  })
})

describe('Expert mode: records and schedules of earlier versions', () => {
  it('the migration names files under the export root and removes schedules their query no longer owns', async () => {
    const name = fs.readdirSync('migrations').find((file) => file.endsWith('_workbench_bounds.sql'))!
    const statements = fs.readFileSync(path.join('migrations', name), 'utf8').split('--> statement-breakpoint')
    const db = t.db.current.db
    await db.execute(sql`insert into query_execution (username, start_date, end_date, status, query_hash, query_text,
        statement_text, app_instance_id, file_path)
      values ('old', now(), now(), 'SUCCESS', 'h', 'select 1', 'select 1', 'gone',
        '/srv/obol/data/exports/queryStudio/old/2026-01-02/expert-77.csv')`)
    const native = (code: string, created: SQL) =>
      db.execute(sql`insert into report_query (code, visibility, query_type, query_text, creator, created)
        values (${code}, 'PRIVATE', 'NATIVE_SQL', 'select 1', 'old', ${created})`)
    const schedule = (code: string, created: SQL) =>
      db.execute(sql`insert into job_instance (code, description, job_type, parameters, timer, creator, created)
        values (${`ExpertQuery:${code}`}, 'old', 'ExpertScheduledQueryJob', ${JSON.stringify({ queryCode: code })}::jsonb,
          '{"hour":"3"}'::jsonb, 'old', ${created})`)
    await native('MIG_KEPT', sql`now() - interval '1 day'`)
    await schedule('MIG_KEPT', sql`now()`)
    await schedule('MIG_GONE', sql`now()`)
    await schedule('MIG_AGAIN', sql`now() - interval '1 day'`)
    await native('MIG_AGAIN', sql`now()`)
    for (const statement of statements) await db.execute(sql.raw(statement))
    const paths = await rows<{ path: string }>(
      db,
      sql`select file_path as path from query_execution where username = 'old'`,
    )
    expect(paths).toEqual([{ path: 'exports/queryStudio/old/2026-01-02/expert-77.csv' }])
    const left = await rows<{ code: string; parameters: Record<string, unknown>; id: string | number }>(
      db,
      sql`select j.code, j.parameters, q.id from job_instance j join report_query q on q.code = j.parameters->>'queryCode'
        where j.code like 'ExpertQuery:MIG_%'`,
    )
    expect(left).toEqual([
      {
        code: 'ExpertQuery:MIG_KEPT',
        parameters: { queryCode: 'MIG_KEPT', queryId: Number(left[0]?.id) },
        id: left[0]?.id,
      },
    ])
    await db.execute(sql`delete from report_query where code like 'MIG_%'`)
    await db.execute(sql`delete from job_instance where code like 'ExpertQuery:MIG_%'`)
  })
})

describe('Expert mode: export retention', () => {
  it('the daily purge deletes exports and records older than the tenant retention, and keeps the others', async () => {
    nextMinute()
    const res = await t.request('PUT', '/api/v1/tenantSettings', { workbench: { exportRetentionDays: 10 } })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.workbench.exportRetentionDays).toBe(10)
    const kept = await finished(await submitted({ query: 'select 1 as kept' }))
    const old = await finished(await submitted({ query: 'select 1 as old' }))
    await t.db.current.db.execute(
      sql`update query_execution set end_date = now() - interval '11 days' where id = ${old.id}`,
    )
    const run = await t.request('POST', '/api/v1/jobs/ExpertExportPurge/run')
    expect(run.status, JSON.stringify(run.body)).toBe(202)
    let execution = await t.jobs.execution(run.body.id as number)
    for (let i = 0; i < 500 && !['SUCCESS', 'FAILED'].includes(execution!.status); i++) {
      await delay(20)
      execution = await t.jobs.execution(run.body.id as number)
    }
    expect(execution).toMatchObject({ status: 'SUCCESS', processedCount: 1, failedCount: 0 })
    expect(fs.existsSync(fileOf(old))).toBe(false)
    expect((await record(old.id)).status).toBe(404)
    expect(fs.existsSync(fileOf(kept))).toBe(true)
    expect((await record(kept.id)).body.status).toBe('SUCCESS')
  })
})

describe('Expert mode: the governor', () => {
  it('counts Expert submissions in the per-minute limit shared with Deep → 429 with Retry-After', async () => {
    nextMinute()
    await setGovernor({ maxQueriesPerMinutePerUser: 2 })
    try {
      const deep = await t.requestAs(expert, 'GET', `/api/rest/query?query=${encodeURIComponent('from Seller')}`)
      expect(deep.status).toBe(200)
      await submitted({ query: 'select 1 as x' })
      const refused = await execute({ query: 'select 1 as x' })
      expect(refused.status).toBe(429)
      expect(refused.body.errorCode).toBe('QUERY_LIMIT_EXCEEDED')
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0)
    } finally {
      await setGovernor({ maxQueriesPerMinutePerUser: 30 })
    }
  })
})

describe.skipIf(onPostgres)('Expert mode on the embedded database: a long run goes in batches', () => {
  /** The part file a run is writing, once it holds rows. */
  async function writing(id: number): Promise<string> {
    for (let i = 0; i < 1500; i++) {
      const part = fs
        .readdirSync(t.exportDir, { recursive: true })
        .map(String)
        .find((name) => path.basename(name) === `expert-${id}.csv.part`)
      if (part && fs.statSync(path.join(t.exportDir, part)).size > 0) return path.join(t.exportDir, part)
      await delay(20)
    }
    throw new Error(`Expert execution ${id} never wrote rows`)
  }

  it('other requests complete while a long streaming run goes on; a cancel ends it CANCELLED at its next batch', async () => {
    nextMinute()
    await setGovernor({ maxRowsSync: 2_000_000, maxRowsAsync: 2_000_000 })
    try {
      const id = await submitted({ query: 'select g, g % 7 as weekday from generate_series(1, 2000000) as g' })
      const part = await writing(id)
      // The embedded database serves a customer list between two batches of the run, which is still going.
      const customers = await t.request('GET', '/api/v1/customers?limit=5')
      expect(customers.status).toBe(200)
      expect(customers.body.data.length).toBeGreaterThan(0)
      expect((await record(id)).body).toMatchObject({ status: null, endDate: null })
      expect((await t.requestAs(expert, 'DELETE', `/api/v1/workbench/expert/executions/${id}`)).status).toBe(202)
      const done = await finished(id)
      expect(done).toMatchObject({ status: 'CANCELLED', filePath: null, lineCount: null })
      expect(fs.existsSync(part)).toBe(false)
    } finally {
      await setGovernor({ maxRowsSync: 1000, maxRowsAsync: 1_000_000 })
    }
  })
})

describe.runIf(onPostgres)('Expert mode on PostgreSQL: long runs', () => {
  const slow = 'select count(*) from generate_series(1, 2000000000) as a'

  async function running(id: number): Promise<void> {
    for (let i = 0; i < 500; i++) {
      const found = await rows<{ n: number }>(
        t.db.current.db,
        sql`select count(*)::int as n from pg_stat_activity where application_name = ${`obol-expert-${id}`} and state = 'active'`,
      )
      if (found[0]!.n > 0) return
      await delay(20)
    }
    throw new Error(`Expert execution ${id} never started`)
  }

  it('a run past maxQueryDurationAsyncSec ends TIMEOUT', async () => {
    nextMinute()
    await setGovernor({ maxQueryDurationAsyncSec: 1 })
    try {
      const done = await finished(await submitted({ query: slow }))
      expect(done.status).toBe('TIMEOUT')
      expect(done.errorMessage).toBe('canceling statement due to statement timeout')
      expect(done.durationMs).toBeGreaterThanOrEqual(0)
    } finally {
      await setGovernor({ maxQueryDurationAsyncSec: 600 })
    }
  })

  it('409 on the file while it runs; DELETE cancels the backend query and the run ends CANCELLED', async () => {
    nextMinute()
    const id = await submitted({ query: slow })
    await running(id)
    expect((await record(id)).body).toMatchObject({ status: null, endDate: null })
    const early = await t.requestAs(expert, 'GET', `/api/v1/workbench/expert/executions/${id}/file`)
    expect(early.status).toBe(409)
    const cancel = await t.requestAs(expert, 'DELETE', `/api/v1/workbench/expert/executions/${id}`)
    expect(cancel.status).toBe(202)
    const done = await finished(id)
    expect(done.status).toBe('CANCELLED')
    expect(done.filePath).toBeNull()
    const audit = await closedAudit<{ status: string }>(
      sql`select q.status from query_audit q join query_execution e on e.audit_id = q.id where e.id = ${id}`,
    )
    expect(audit).toEqual([{ status: 'CANCELLED' }])
  })

  it('the fourth concurrent run of a user is 429; another user is not affected; a cancelled run frees its place', async () => {
    nextMinute()
    const ids = [await submitted({ query: slow }), await submitted({ query: slow }), await submitted({ query: slow })]
    const fourth = await execute({ query: slow })
    expect(fourth.status).toBe(429)
    expect(fourth.body.errorCode).toBe('QUERY_LIMIT_EXCEEDED')
    expect(fourth.headers['retry-after']).toBe('2')
    const other = await submitted({ query: 'select 1 as y' }, otherExpert)
    expect((await finished(other, otherExpert)).status).toBe('SUCCESS')
    for (const id of ids)
      expect((await t.requestAs(expert, 'DELETE', `/api/v1/workbench/expert/executions/${id}`)).status).toBe(202)
    for (const id of ids) expect((await finished(id)).status).toBe('CANCELLED')
    expect((await finished(await submitted({ query: 'select 1 as z' }))).status).toBe('SUCCESS')
  })

  it('racing submissions of one user: exactly maxConcurrentAsyncPerUser are accepted', async () => {
    nextMinute()
    const racer = await t.tokenWithRoles(['queryUser', 'queryExpert'])
    const answers = await Promise.all(Array.from({ length: 12 }, () => execute({ query: slow }, racer)))
    const accepted = answers.filter((a) => a.status === 200)
    expect(answers.filter((a) => a.status === 429)).toHaveLength(9)
    expect(accepted).toHaveLength(3)
    const owner = (await record(accepted[0]!.body.queryExecutionResultId as number, racer)).body.username as string
    const open = await rows<{ n: number }>(
      t.db.current.db,
      sql`select count(*)::int as n from query_execution where end_date is null and username = ${owner}`,
    )
    expect(open[0]!.n).toBe(3)
    for (const answer of accepted) {
      const id = answer.body.queryExecutionResultId as number
      await t.requestAs(racer, 'DELETE', `/api/v1/workbench/expert/executions/${id}`)
      expect((await finished(id, racer)).status).toBe('CANCELLED')
    }
  })
})

// Last in the file: it stops the job runtime the other tests run on.
describe('Expert mode: submitted while the job runtime is down', () => {
  it('answers 503, records no run, and ends the audit entry of the request FAILED', async () => {
    const runsBefore = await rows<{ n: number }>(t.db.current.db, sql`select count(*)::int as n from query_execution`)
    await t.jobs.stop(1000)
    const submitted = await execute({ query: 'select code from seller where code is not null' })
    expect(submitted.status).toBe(503)
    expect(submitted.body.errorCode).toBe('SERVICE_UNAVAILABLE')
    const runsAfter = await rows<{ n: number }>(t.db.current.db, sql`select count(*)::int as n from query_execution`)
    expect(runsAfter).toEqual(runsBefore)
    const audit = await rows<{ status: string; error_message: string }>(
      t.db.current.db,
      sql`select status, error_message from query_audit
        where query_text = 'select code from seller where code is not null' order by id desc limit 1`,
    )
    expect(audit).toEqual([{ status: 'FAILED', error_message: 'The job runtime is not started' }])
  })
})
