import { beforeAll, describe, expect, it } from 'vitest'
import { sql } from 'drizzle-orm'
import { FakeClock } from '../../src/kernel/clock.ts'
import { rows } from '../../src/kernel/db/database.ts'
import { seedDemo } from '../../src/seed.ts'
import { seedVolume, type VolumeProgress } from '../../src/seed-volume.ts'
import { useTestApp } from '../support/test-app.ts'

/** `obol seed-demo --volume N` (DECISIONS "Volume generator"): N more wallet operations the Query API counts. */

const t = useTestApp()
const clock = new FakeClock('2026-11-26T12:00:00Z')

const count = async (entity: string, filters?: Record<string, unknown>) => {
  const query = filters ? `?filters=${encodeURIComponent(JSON.stringify(filters))}` : ''
  const response = await t.request('GET', `/api/v1/query/${entity}/count${query}`)
  expect(response.status, JSON.stringify(response.body)).toBe(200)
  return response.body.total as number
}

beforeAll(async () => {
  await seedDemo(t.db.current.db)
})

describe('volume generator', () => {
  it('adds exactly N wallet operations, with their subscriptions and charge instances, in batches', async () => {
    const before = { operations: await count('walletOperation'), subscriptions: await count('subscription') }
    const progress: VolumeProgress[] = []
    const done = await seedVolume(t.db.current.db, {
      count: 2500,
      batch: 1000,
      clock,
      onProgress: (p) => progress.push(p),
    })
    expect(done).toEqual({ walletOperations: 2500, subscriptions: 25 })
    // Month by month, at most a batch between two reports.
    const written = progress.map((p) => p.written)
    expect(written.at(-1)).toBe(2500)
    expect(written.every((n, i) => n > (written[i - 1] ?? 0) && n - (written[i - 1] ?? 0) <= 1000)).toBe(true)
    expect(await count('walletOperation')).toBe(before.operations + 2500)
    expect(await count('subscription')).toBe(before.subscriptions + 25)
    // Dated over the two years up to the clock's day, each in its month's partition.
    expect(await count('walletOperation', { 'fromRange operationDate': '2024-11-26', creator: 'seed-volume' })).toBe(
      2500,
    )
    expect(await count('walletOperation', { 'fromRange operationDate': '2026-11-27', creator: 'seed-volume' })).toBe(0)
    const misplaced = await rows<{ n: number }>(
      t.db.current.db,
      sql`select count(*)::int as n from wallet_operation_default where creator = 'seed-volume'`,
    )
    expect(misplaced[0]!.n).toBe(0)
  })

  it('belongs each operation to a charge instance of its own subscription, never due for rating', async () => {
    const found = await rows<{ foreign: number; due: number }>(
      t.db.current.db,
      sql`select
            (select count(*)::int from wallet_operation w join charge_instance ci on ci.id = w.charge_instance_id
              where w.creator = 'seed-volume' and ci.subscription_id <> w.subscription_id) as foreign,
            (select count(*)::int from charge_instance where creator = 'seed-volume' and next_rating_date is not null) as due`,
    )
    expect(found[0]).toEqual({ foreign: 0, due: 0 })
  })

  it('gives the months it builds the same validated foreign keys and indexes as every other partition', async () => {
    const partitions = await rows<{ keys: number; unchecked: number; indexes: number }>(
      t.db.current.db,
      sql`select (select count(*)::int from pg_constraint c where c.conrelid = i.inhrelid and c.contype = 'f') as keys,
            (select count(*)::int from pg_constraint c where c.conrelid = i.inhrelid and not c.convalidated) as unchecked,
            (select count(*)::int from pg_index x where x.indrelid = i.inhrelid) as indexes
          from pg_inherits i where i.inhparent = 'wallet_operation'::regclass`,
    )
    expect(partitions.length).toBeGreaterThan(24)
    expect(new Set(partitions.map((p) => JSON.stringify(p))).size).toBe(1)
    expect(partitions[0]!.keys).toBeGreaterThan(10)
    expect(partitions[0]!.unchecked).toBe(0)
  })

  it('continues the numbering on a second run', async () => {
    const done = await seedVolume(t.db.current.db, { count: 10, clock })
    expect(done).toEqual({ walletOperations: 10, subscriptions: 1 })
    const codes = await rows<{ code: string }>(
      t.db.current.db,
      sql`select code from subscription where code like 'SUB_VOL_%' order by code desc limit 1`,
    )
    expect(codes[0]!.code).toBe('SUB_VOL_000000026')
  })
})
