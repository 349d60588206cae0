import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import pino from 'pino'
import { sql } from 'drizzle-orm'
import { buildApp, type App } from '../../src/app.ts'
import { FakeClock, systemClock } from '../../src/kernel/clock.ts'
import { rows, type Database, type TextStatement } from '../../src/kernel/db/database.ts'
import { JobRuntime } from '../../src/kernel/jobs/job-runtime.ts'
import { walletOperationPartitionJob } from '../../src/modules/ordering/index.ts'
import { seedDemo } from '../../src/seed.ts'
import { TEST_ADMIN, testAppDeps } from '../support/test-app.ts'
import { useTestDatabase } from '../support/test-database.ts'

/**
 * `wallet_operation` partitioned by month of operation date (DECISIONS "Partitioned wallet operations"): the demo's
 * operations sit in their month's partition, the job creates partitions ahead and takes their rows out of the
 * default partition, and a Query API date range reads only the partitions it covers.
 */

const db = useTestDatabase()
/** The day the partition job runs. */
const clock = new FakeClock('2035-06-20T10:00:00Z')
let app: App
let admin = ''
/** The statements the query layer ran, as they reached the database. */
const statements: TextStatement[] = []

async function partitionOf(code: string): Promise<string[]> {
  const found = await rows<{ partition: string }>(
    db.current.db,
    sql`select tableoid::regclass::text as partition from wallet_operation where code = ${code}`,
  )
  return found.map((r) => r.partition)
}

beforeAll(async () => {
  await seedDemo(db.current.db)
  const database = db.current
  const capturing: Database = Object.create(database) as Database
  Object.defineProperty(capturing, 'readOnlyQuery', {
    value: (timeoutMs: number, statement: TextStatement, reader?: { subject: string }) => {
      statements.push(statement)
      return database.readOnlyQuery(timeoutMs, statement, reader)
    },
  })
  const jobs = new JobRuntime({
    database,
    clock: systemClock,
    log: pino({ level: 'silent' }),
    heartbeatIntervalMs: 200,
    instanceStaleAfterMs: 2000,
    timerPollIntervalMs: 100,
    worker: false,
    roles: 'api',
  })
  app = await buildApp(testAppDeps(capturing, jobs))
  const token = await app.server.inject({
    method: 'POST',
    url: '/auth/realms/obol/protocol/openid-connect/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: TEST_ADMIN.clientId,
      client_secret: TEST_ADMIN.clientSecret,
    }).toString(),
  })
  admin = token.json<{ access_token: string }>().access_token
})

afterAll(async () => {
  await app.server.close()
})

describe('partitioned wallet operations', () => {
  it('is a table partitioned by range of operation date, with a default partition', async () => {
    const found = await rows<{ kind: string; key: string; partitions: string[] }>(
      db.current.db,
      sql`select c.relkind::text as kind, pg_get_partkeydef(c.oid) as key,
            array(select i.inhrelid::regclass::text from pg_inherits i where i.inhparent = c.oid order by 1) as partitions
          from pg_class c where c.relname = 'wallet_operation'`,
    )
    expect(found[0]).toMatchObject({ kind: 'p', key: 'RANGE (operation_date)' })
    expect(found[0]!.partitions).toContain('wallet_operation_default')
    expect(found[0]!.partitions.filter((p) => /^wallet_operation_p\d{4}_\d{2}$/.test(p)).length).toBeGreaterThan(3)
  })

  it('creates partitions ahead and one for each month the default partition holds, moving its rows', async () => {
    await db.current.db.execute(
      sql`insert into wallet_operation (code, status, charge_type, operation_date, quantity, unit_amount_without_tax,
            amount_without_tax, amount_tax, amount_with_tax, tax_percent, tax_id, accounting_article_id, currency_id,
            wallet_id, charge_instance_id, subscription_id, billing_account_id, seller_id)
          select 'WO_FAR_' || to_char(day, 'YYYY_MM'), status, charge_type, day, quantity, unit_amount_without_tax,
            amount_without_tax, amount_tax, amount_with_tax, tax_percent, tax_id, accounting_article_id, currency_id,
            wallet_id, charge_instance_id, subscription_id, billing_account_id, seller_id
          from (select * from wallet_operation limit 1) as w,
            unnest(array['2035-07-15', '2035-12-31', '2040-01-01']::date[]) as day`,
    )
    expect(await partitionOf('WO_FAR_2035_07')).toEqual(['wallet_operation_default'])
    const run = () =>
      walletOperationPartitionJob.run({
        executionId: 0,
        jobCode: 'WalletOperationPartitions',
        parameters: { monthsAhead: 2 },
        db: db.current.db,
        clock,
        log: pino({ level: 'silent' }),
        signal: new AbortController().signal,
        progress: async () => undefined,
      })
    expect((await run()).processed).toBeGreaterThanOrEqual(5)
    for (const month of ['2035_07', '2035_12', '2040_01'])
      expect(await partitionOf(`WO_FAR_${month}`)).toEqual([`wallet_operation_p${month}`])
    // Every operation, the demo's included, is in the partition of its month; June to August 2035 exist ahead.
    const misplaced = await rows<{ code: string }>(
      db.current.db,
      sql`select code from wallet_operation
          where tableoid::regclass::text <> 'wallet_operation_p' || to_char(operation_date, 'YYYY_MM')`,
    )
    expect(misplaced).toEqual([])
    const ahead = await rows<{ name: string }>(
      db.current.db,
      sql`select relname as name from pg_class where relname in ('wallet_operation_p2035_06', 'wallet_operation_p2035_08')`,
    )
    expect(ahead).toHaveLength(2)
    // A second run finds nothing to do.
    expect(await run()).toEqual({ processed: 0 })
  })

  it('reads only the partitions a Query API date range covers (EXPLAIN)', async () => {
    const filters = encodeURIComponent(
      JSON.stringify({ 'fromRange operationDate': '2035-07-01', 'toRange operationDate': '2035-08-01' }),
    )
    statements.length = 0
    const response = await app.server.inject({
      method: 'GET',
      url: `/api/v1/query/walletOperation?filters=${filters}&fields=code`,
      headers: { authorization: `Bearer ${admin}` },
    })
    expect(response.statusCode, response.body).toBe(200)
    expect(response.json<{ data: { code: string }[] }>().data.map((w) => w.code)).toEqual(['WO_FAR_2035_07'])
    const statement = statements.at(-1)!
    const plan = await db.current.readOnlyQuery<{ 'QUERY PLAN': string }>(60_000, {
      text: `explain (costs off) ${statement.text}`,
      values: statement.values,
    })
    const scanned = new Set(
      plan.flatMap((line) => [...line['QUERY PLAN'].matchAll(/\bon (wallet_operation\w*)/g)].map((m) => m[1])),
    )
    expect([...scanned]).toEqual(['wallet_operation_p2035_07'])
  })
})
