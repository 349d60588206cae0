import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import pino from 'pino'
import { buildApp, type App } from '../../src/app.ts'
import { systemClock } from '../../src/kernel/clock.ts'
import { openPostgres, type Database } from '../../src/kernel/db/database.ts'
import { migrate } from '../../src/kernel/db/migrate.ts'
import { JobRuntime } from '../../src/kernel/jobs/job-runtime.ts'
import { TEST_ADMIN, testAppDeps } from '../support/test-app.ts'
import { onPostgres } from '../support/test-database.ts'
import { canStartClusters, startReplicaCluster, type ReplicaCluster } from '../support/replica-cluster.ts'

/**
 * Reads on a real streaming replica (DECISIONS "Read replicas"): a primary and a replica that applies every commit
 * 3 s late, two Obol instances on them. A caller reads their own write at once on either instance; another caller,
 * reading from the replica, sees it after the replay; a stopped replica costs no error and is used again once back.
 * Expert runs (COPY to CSV, as the Expert role) follow the same rules.
 */

const APPLY_DELAY_MS = 3000
const enabled = onPostgres && canStartClusters()

interface Instance {
  app: App
  database: Database
  jobs: JobRuntime
}

interface Answer {
  status: number
  body: any
}

/** Polls until `check` holds (the replica replays on its own schedule), failing after `timeoutMs`. */
async function until(what: string, check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

describe.skipIf(!enabled)('reads on a streaming replica (needs PostgreSQL and its binaries)', () => {
  let cluster: ReplicaCluster | undefined
  const instances: Instance[] = []
  let admin = ''
  let reader = ''
  /** Expert mode only (queryUser and queryExpert): never writes, so its runs may read the replica. */
  let analyst = ''

  async function call(instance: Instance, token: string, method: string, url: string, body?: unknown) {
    const response = await instance.app.server.inject({
      method: method as 'GET',
      url,
      headers: { authorization: `Bearer ${token}` },
      ...(body === undefined ? {} : { payload: body as object }),
    })
    return { status: response.statusCode, body: response.body ? response.json() : undefined }
  }

  async function clientToken(instance: Instance, clientId: string, clientSecret: string): Promise<string> {
    const response = await instance.app.server.inject({
      method: 'POST',
      url: '/auth/realms/obol/protocol/openid-connect/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: clientId,
        client_secret: clientSecret,
      }).toString(),
    })
    expect(response.statusCode, response.body).toBe(200)
    return response.json<{ access_token: string }>().access_token
  }

  /** The sellers of that code the caller sees through the Query API. */
  async function sellers(instance: Instance, token: string, code: string): Promise<string[]> {
    const filters = encodeURIComponent(JSON.stringify({ code }))
    const response = await call(instance, token, 'GET', `/api/v1/query/seller?filters=${filters}&fields=code`)
    expect(response.status, JSON.stringify(response.body)).toBe(200)
    return (response.body.data as { code: string }[]).map((s) => s.code)
  }

  /** obol_db_reads_total by target, as /metrics shows it. */
  async function reads(instance: Instance): Promise<{ primary: number; replica: number }> {
    const response = await instance.app.server.inject({ method: 'GET', url: '/metrics' })
    const count = (target: string) =>
      Number(new RegExp(`^obol_db_reads_total\\{target="${target}"\\} (\\d+)$`, 'm').exec(response.body)?.[1] ?? NaN)
    return { primary: count('primary'), replica: count('replica') }
  }

  /** The reads of every instance: an Expert run is exported by the worker instance that takes its message. */
  async function readsOfAll(): Promise<{ primary: number; replica: number }> {
    const each = await Promise.all(instances.map((instance) => reads(instance)))
    return {
      primary: each.reduce((sum, r) => sum + r.primary, 0),
      replica: each.reduce((sum, r) => sum + r.replica, 0),
    }
  }

  async function ready(instance: Instance): Promise<Answer> {
    const response = await instance.app.server.inject({ method: 'GET', url: '/health/ready' })
    return { status: response.statusCode, body: response.json() }
  }

  /** Submits an Expert query and polls its record until the run has ended. */
  async function expertRun(instance: Instance, token: string, query: string): Promise<Record<string, any>> {
    const submitted = await call(instance, token, 'POST', '/api/v1/workbench/expert/execute', { query })
    expect(submitted.status, JSON.stringify(submitted.body)).toBe(200)
    const id = submitted.body.queryExecutionResultId as number
    let record: Answer | undefined
    await until(
      `Expert run ${id} has ended`,
      async () => {
        record = await call(instance, token, 'GET', `/api/v1/workbench/expert/executions/${id}`)
        return record.body.endDate !== null
      },
      10_000,
    )
    return record!.body as Record<string, any>
  }

  const replicaState = async (instance: Instance) => (await ready(instance)).body.replicas?.[0]?.state as string

  async function startInstance(
    primaryUrl: string,
    replicaUrl: string,
    readMaxLagMs = 5000,
    worker = false,
  ): Promise<Instance> {
    const database = openPostgres(primaryUrl, {
      max: 5,
      readUrls: [replicaUrl],
      readMaxLagMs,
      replicaCheckIntervalMs: 100,
    })
    // Expert runs are messages of the job runtime's queue: every instance's runtime is started to send them, one
    // (`worker`) runs them. Its timers and heartbeats are slow, so an idle primary writes nothing and the replica
    // catches up (a write every 200 ms would keep it 3 s behind).
    const jobs = new JobRuntime({
      database,
      clock: systemClock,
      log: pino({ level: 'silent' }),
      heartbeatIntervalMs: 60_000,
      instanceStaleAfterMs: 600_000,
      timerPollIntervalMs: 60_000,
      worker,
      roles: worker ? 'all' : 'api',
    })
    await jobs.start()
    const instance = { app: await buildApp(testAppDeps(database, jobs)), database, jobs }
    instances.push(instance)
    return instance
  }

  beforeAll(async () => {
    cluster = await startReplicaCluster({ database: 'obol', applyDelayMs: APPLY_DELAY_MS })
    const migrator = openPostgres(cluster.primaryUrl, { max: 1 })
    await migrate(migrator.db)
    await migrator.close()
    const a = await startInstance(cluster.primaryUrl, cluster.replicaUrl)
    // The second instance runs the Expert runs of both (its lag bound, 5 s, is the first one's).
    await startInstance(cluster.primaryUrl, cluster.replicaUrl, 5000, true)
    admin = await clientToken(a, TEST_ADMIN.clientId, TEST_ADMIN.clientSecret)
    const group = await call(a, admin, 'POST', '/api/v1/groups', { name: 'readers', roles: ['queryUser'] })
    expect(group.status).toBe(201)
    const client = await call(a, admin, 'POST', '/api/v1/clients', { clientId: 'reader', groups: ['readers'] })
    expect(client.status).toBe(201)
    reader = await clientToken(a, client.body.clientId, client.body.clientSecret)
    const experts = await call(a, admin, 'POST', '/api/v1/groups', {
      name: 'experts',
      roles: ['queryUser', 'queryExpert'],
    })
    expect(experts.status).toBe(201)
    const expertClient = await call(a, admin, 'POST', '/api/v1/clients', { clientId: 'analyst', groups: ['experts'] })
    expect(expertClient.status).toBe(201)
    analyst = await clientToken(a, expertClient.body.clientId, expertClient.body.clientSecret)
    // The replica has replayed the schema (and the reader's client) once both instances call it UP.
    for (const instance of instances)
      await until('the replica is up', async () => (await replicaState(instance)) === 'UP', 20_000)
  }, 60_000)

  afterAll(async () => {
    for (const instance of instances) {
      await instance.app.server.close()
      await instance.jobs.stop(1000)
      await instance.database.close()
    }
    await cluster?.destroy()
  })

  it('answers the reads of a caller who has not written from the replica', async () => {
    const [a, b] = instances as [Instance, Instance]
    const before = [await reads(a), await reads(b)]
    expect(await sellers(a, reader, 'NO_SUCH_SELLER')).toEqual([])
    expect(await sellers(b, reader, 'NO_SUCH_SELLER')).toEqual([])
    const after = [await reads(a), await reads(b)]
    expect(after[0]!.replica - before[0]!.replica).toBe(1)
    expect(after[1]!.replica - before[1]!.replica).toBe(1)
    expect(after[0]!.primary).toBe(before[0]!.primary)
  })

  it('shows a caller their own write at once on both instances, and others once the replica has replayed it', async () => {
    const [a, b] = instances as [Instance, Instance]
    expect((await call(a, admin, 'POST', '/api/v1/sellers', { code: 'WRITTEN_ON_A' })).status).toBe(201)
    const before = await reads(b)
    expect(await sellers(a, admin, 'WRITTEN_ON_A')).toEqual(['WRITTEN_ON_A'])
    expect(await sellers(b, admin, 'WRITTEN_ON_A')).toEqual(['WRITTEN_ON_A'])
    expect((await reads(b)).primary - before.primary).toBe(1)
    // The replica applies the commit 3 s late: another caller, reading from it, does not see it yet...
    expect(await sellers(b, reader, 'WRITTEN_ON_A')).toEqual([])
    // ...and does once it has been replayed, still from the replica.
    await until(
      'the replica has replayed the write',
      async () => (await sellers(b, reader, 'WRITTEN_ON_A')).length === 1,
      APPLY_DELAY_MS * 3,
    )
    const after = await reads(b)
    expect(after.replica - before.replica).toBeGreaterThanOrEqual(2)
  }, 20_000)

  it('shows a caller their own write in a saved report executed on the other instance', async () => {
    const [a, b] = instances as [Instance, Instance]
    const saved = await call(a, admin, 'POST', '/api/v1/reportQueries', {
      code: 'NEW_SELLERS',
      targetEntity: 'Seller',
      visibility: 'PRIVATE',
      advancedQuery: { filters: { code: 'IN_REPORT' }, genericFields: ['code'] },
    })
    expect(saved.status, JSON.stringify(saved.body)).toBe(201)
    expect((await call(a, admin, 'POST', '/api/v1/sellers', { code: 'IN_REPORT' })).status).toBe(201)
    const executed = await call(b, admin, 'POST', '/api/v1/reportQueries/NEW_SELLERS/executions', {})
    expect(executed.status, JSON.stringify(executed.body)).toBe(200)
    expect(executed.body.rows).toMatchObject([{ code: 'IN_REPORT' }])
  })

  it('reads the primary while the replica lags more than the bound', async () => {
    const [a, b] = instances as [Instance, Instance]
    const strict = await startInstance(cluster!.primaryUrl, cluster!.replicaUrl, 500)
    await until('the replica has caught up', async () => (await replicaState(strict)) === 'UP', 10_000)
    expect((await call(a, admin, 'POST', '/api/v1/sellers', { code: 'LAGGED' })).status).toBe(201)
    await until('the replica lags past 500 ms', async () => (await replicaState(strict)) === 'LAGGING', 2500)
    // LAGGING means more than 500 ms behind; readiness shows the lag rounded to the millisecond (500.3 reads 500).
    expect((await ready(strict)).body.replicas[0].lagMs).toBeGreaterThanOrEqual(500)
    // Within the 5 s bound the replica still answers, without the write; past the 500 ms one, the primary does.
    expect(await sellers(b, reader, 'LAGGED')).toEqual([])
    expect(await sellers(strict, reader, 'LAGGED')).toEqual(['LAGGED'])
  })

  it('runs an Expert export on the replica, and on the primary for a submitter whose write it has not replayed', async () => {
    const [a, b] = instances as [Instance, Instance]
    expect((await call(a, admin, 'POST', '/api/v1/sellers', { code: 'EXPERT_SEES' })).status).toBe(201)
    const query = "select code from seller where code = 'EXPERT_SEES'"
    const before = await readsOfAll()
    // The writer, on the other instance at once: the replica is 3 s behind, the primary runs it and sees the write.
    expect(await expertRun(b, admin, query)).toMatchObject({ status: 'SUCCESS', lineCount: 1 })
    const afterWriter = await readsOfAll()
    expect(afterWriter).toEqual({ primary: before.primary + 1, replica: before.replica })
    // Someone who has not written reads the replica, which has not replayed it yet.
    expect(await expertRun(b, analyst, query)).toMatchObject({ status: 'SUCCESS', lineCount: 0 })
    expect(await readsOfAll()).toEqual({ primary: afterWriter.primary, replica: afterWriter.replica + 1 })
    // The Expert role exists on the replica (the run above read there as it) with the primary's grants: no reading
    // other users' query texts there either.
    const refused = await expertRun(b, analyst, 'select query_text from query_audit')
    expect(refused).toMatchObject({ status: 'FAILED', errorMessage: 'permission denied for table query_audit' })
  }, 20_000)

  it('answers from the primary while the replica is stopped, stays ready, and reads the replica again once back', async () => {
    const [a, b] = instances as [Instance, Instance]
    await cluster!.stopReplica()
    // An Expert run at once: the replica refuses its connection (or is already known down), the primary exports.
    const beforeExpert = await readsOfAll()
    expect(await expertRun(a, analyst, 'select code from seller order by code')).toMatchObject({ status: 'SUCCESS' })
    expect(await readsOfAll()).toEqual({ primary: beforeExpert.primary + 1, replica: beforeExpert.replica })
    // The first read may still try the replica: refused, the primary answers within the same request.
    for (const instance of [a, b]) expect(await sellers(instance, reader, 'NO_SUCH_SELLER')).toEqual([])
    for (const instance of [a, b])
      await until('the replica is seen down', async () => (await replicaState(instance)) === 'DOWN', 5000)
    const down = await ready(a)
    expect(down.status).toBe(200)
    expect(down.body).toMatchObject({ status: 'UP', database: 'UP', replicas: [{ state: 'DOWN', lagMs: null }] })
    const before = await reads(a)
    expect(await sellers(a, reader, 'NO_SUCH_SELLER')).toEqual([])
    expect((await reads(a)).primary - before.primary).toBe(1)

    await cluster!.startReplica()
    await until(
      'reads reach the replica again',
      async () => {
        const was = (await reads(a)).replica
        await sellers(a, reader, 'NO_SUCH_SELLER')
        return (await reads(a)).replica > was
      },
      20_000,
    )
  }, 40_000)

  it('shows each replica lag on /metrics', async () => {
    const response = await instances[0]!.app.server.inject({ method: 'GET', url: '/metrics' })
    expect(response.body).toMatch(/^obol_db_replica_lag_seconds\{replica="127\.0\.0\.1:\d+\/obol"\} [\d.]+$/m)
    expect(response.body).toMatch(/^obol_db_reads_total\{target="replica"\} \d+$/m)
  })
})
