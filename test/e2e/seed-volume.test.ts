import { beforeAll, describe, expect, it } from 'vitest'
import { sql } from 'drizzle-orm'
import { FakeClock } from '../../src/kernel/clock.ts'
import { rows } from '../../src/kernel/db/database.ts'
import { seedDemo } from '../../src/seed.ts'
import { seedVolume, type VolumeProgress } from '../../src/seed-volume.ts'
import { useTestApp } from '../support/test-app.ts'
import { settledRun } from './invoicing-fixtures.ts'

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
    expect(done).toEqual({ walletOperations: 2500, subscriptions: 25, billingAccounts: 0 })
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
    expect(done).toEqual({ walletOperations: 10, subscriptions: 1, billingAccounts: 0 })
    const codes = await rows<{ code: string }>(
      t.db.current.db,
      sql`select code from subscription where code like 'SUB_VOL_%' order by code desc limit 1`,
    )
    expect(codes[0]!.code).toBe('SUB_VOL_000000026')
  })

  it('spreads the operations over new billing accounts with --accounts, each with its hierarchy and principal wallet', async () => {
    const accounts = async () => count('billingAccount', { 'likeCriterias code': 'BA_VOL_*' })
    expect(await accounts()).toBe(0)
    const earlier = await count('subscription', { 'likeCriterias code': 'SUB_VOL_*' })
    const done = await seedVolume(t.db.current.db, { count: 1000, accounts: 10, allOpen: true, clock })
    expect(done).toEqual({ walletOperations: 1000, subscriptions: 10, billingAccounts: 10 })
    expect(await accounts()).toBe(10)
    expect(await count('customer', { 'likeCriterias code': 'CUST_VOL_*' })).toBe(10)
    expect(await count('customerAccount', { 'likeCriterias code': 'CA_VOL_*' })).toBe(10)
    expect(await count('userAccount', { 'likeCriterias code': 'UA_VOL_*' })).toBe(10)
    // Each operation of this run on a new account, consistent with its subscription, charge instance, wallet (the
    // user account's principal postpaid one), billing account and seller; all OPEN.
    const [found] = await rows<Record<string, number>>(
      t.db.current.db,
      sql`select count(*)::int as operations,
            count(distinct w.billing_account_id)::int as accounts,
            count(*) filter (where w.status <> 'OPEN')::int as not_open,
            count(*) filter (where ba.code not like 'BA\\_VOL\\_%' or ci.subscription_id <> w.subscription_id
              or ci.wallet_id <> w.wallet_id or wl.user_account_id <> s.user_account_id or not wl.principal
              or wl.wallet_type <> 'POSTPAID' or ua.billing_account_id <> w.billing_account_id
              or w.seller_id <> s.seller_id or c.seller_id <> s.seller_id)::int as inconsistent
          from wallet_operation w join subscription s on s.id = w.subscription_id
          join charge_instance ci on ci.id = w.charge_instance_id join wallet wl on wl.id = w.wallet_id
          join user_account ua on ua.id = s.user_account_id join billing_account ba on ba.id = w.billing_account_id
          join customer_account ca on ca.id = ba.customer_account_id join customer c on c.id = ca.customer_id
          where s.code > ${`SUB_VOL_${String(earlier).padStart(9, '0')}`}`,
    )
    expect(found).toEqual({ operations: 1000, accounts: 10, not_open: 0, inconsistent: 0 })
    // A bill run of their cycle gives each new account an invoice of its own operations.
    const response = await t.request('POST', '/api/v1/billingRuns', {
      billingCycle: 'CYC_MONTHLY',
      processType: 'FULL_AUTOMATIC',
      lastTransactionDate: '2030-01-01',
    })
    expect(response.status, JSON.stringify(response.body)).toBe(201)
    expect((await settledRun(t, response.body.id as number, 60_000)).status).toBe('VALIDATED')
    const invoices = await rows<{ code: string; same: boolean }>(
      t.db.current.db,
      sql`select ba.code, i.amount_without_tax = (select sum(w.amount_without_tax) from wallet_operation w
            where w.billing_account_id = ba.id) as same
          from invoice i join billing_account ba on ba.id = i.billing_account_id
          where i.billing_run_id = ${response.body.id as number} and ba.code like 'BA\\_VOL\\_%' order by ba.code`,
    )
    expect(invoices).toEqual(
      Array.from({ length: 10 }, (_, i) => ({ code: `BA_VOL_${String(i + 1).padStart(9, '0')}`, same: true })),
    )
  })
})
