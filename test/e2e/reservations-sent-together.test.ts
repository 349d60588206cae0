import { describe, expect, it } from 'vitest'
import { FakeClock } from '../../src/kernel/clock.ts'
import * as repo from '../../src/modules/prepaid/prepaid.repository.ts'
import { useTestApp } from '../support/test-app.ts'
import {
  credit,
  expectLedgerConsistent,
  ledgerCheck,
  MEDIATION,
  reserve,
  seedPrepaid,
  wallet,
} from './reservations-fixtures.ts'

/**
 * A reserve's lookups, and a confirm's or cancel's read of its reservation, asked for in the same turn of the event
 * loop go to the database as one statement (`coalescedReads`): each request must still get its own subscription,
 * counter, amounts and reservation, and an unknown one its own error.
 */
const clock = new FakeClock('2026-03-10T12:00:00.000Z')
const t = useTestApp({ clock })

const confirm = (body: unknown) => t.request('POST', `${MEDIATION}/confirmReservation`, body)
const cancel = (body: unknown) => t.request('POST', `${MEDIATION}/cancelReservation`, body)

describe('reads sent together', () => {
  it('gives each reserve, confirm and cancel of one turn its own figures', async () => {
    await seedPrepaid(t, ['SUB_A', 'SUB_B', 'SUB_C'])
    await credit(t, '100')
    // SUB_A's CALL line opens its counter period (the locked path) and takes 3 of its 10 free units; the SMS lines
    // rate CH_ANY: 0.10 a unit + 20 % tax.
    const reserved = await Promise.all([
      reserve(t, '2026-03-10T09:00:00;SUB_A;3;CALL;x'),
      reserve(t, '2026-03-10T09:00:00;SUB_B;4;SMS;x'),
      reserve(t, '2026-03-10T09:00:00;NO_SUCH;1;CALL;x'),
      reserve(t, '2026-03-10T09:00:00;SUB_C;7;SMS;x'),
      reserve(t, '2026-03-10T09:00:00;SUB_A;2;SMS;x'),
    ])
    expect(reserved.map((r) => r.status)).toEqual([200, 200, 400, 200, 200])
    expect(reserved.map((r) => r.body.amountWithTax as unknown)).toEqual([0, 0.48, undefined, 0.84, 0.24])
    expect(reserved[2].body).toMatchObject({ status: 'FAIL', errorCode: 'INVALID_USAGE_RECORD' })
    expect(reserved[2].body.message).toContain('NO_SUCH')
    expect(await wallet(t)).toMatchObject({ balance: 100, reserved: 1.56 })

    // A second CALL line on SUB_A, now on the one-statement path, sees the 7 units its first one left.
    const again = await Promise.all([
      reserve(t, '2026-03-10T10:00:00;SUB_A;7;CALL;x'),
      reserve(t, '2026-03-10T10:00:00;SUB_B;1;CALL;x'),
    ])
    expect(again.map((r) => [r.status, r.body.amountWithTax as unknown])).toEqual([
      [200, 0],
      [200, 0],
    ])

    const [a, b, , c, d] = reserved.map((r) => r.body.reservationId as number)
    const closed = await Promise.all([
      confirm({ reservationId: a }),
      confirm({ reservationId: b, consumedQuantity: 1 }),
      cancel({ reservationId: c }),
      confirm({ reservationId: 999_999 }),
      confirm({ reservationId: d }),
    ])
    expect(closed.map((r) => r.status)).toEqual([200, 200, 200, 404, 200])
    expect(closed[3].body).toMatchObject({ status: 'FAIL', errorCode: 'ENTITY_NOT_FOUND' })
    // Consumed: SUB_B's 1 SMS unit (0.12) and SUB_A's 2 (0.24); SUB_C's 0.84 and SUB_B's other 0.36 are given back.
    expect(await wallet(t)).toMatchObject({ balance: 99.64, reserved: 0 })
    expectLedgerConsistent(await ledgerCheck(t))
  })

  it('refuses a line dated in year 0000 (PostgreSQL has none) on its own, without failing the line sent with it', async () => {
    const answers = await Promise.all([
      reserve(t, '0000-01-01T09:00:00;SUB_C;1;SMS;x'),
      reserve(t, '2026-03-10T09:30:00;SUB_C;1;SMS;x'),
    ])
    expect(answers.map((r) => r.status)).toEqual([400, 200])
    expect(answers[0].body).toMatchObject({ status: 'FAIL', errorCode: 'INVALID_USAGE_RECORD' })
  })

  it('maps each key of one statement to its own row (the repository, directly)', async () => {
    const db = t.db.current.db
    const day = '2026-03-10'
    const found = await Promise.all([
      repo.usageContextSoon(db, { subscriptionCode: 'SUB_B', param1: 'CALL', day }),
      repo.usageContextSoon(db, { subscriptionCode: 'NO_SUCH', param1: 'CALL', day }),
      repo.usageContextSoon(db, { subscriptionCode: 'SUB_A', param1: 'CALL', day }),
      repo.usageContextSoon(db, { subscriptionCode: 'SUB_A', param1: 'SMS', day }),
      repo.usageContextSoon(db, { subscriptionCode: 'SUB_C', param1: 'CALL', day }),
    ])
    expect(
      found.map((f) => f && [f.subscription.code, f.charge?.counterTemplateId !== null, f.period?.value ?? null]),
    ).toEqual([
      ['SUB_B', true, '9'],
      undefined,
      ['SUB_A', true, '0'],
      ['SUB_A', false, null],
      // SUB_C took no CALL: its counter period is not opened yet.
      ['SUB_C', true, null],
    ])
  })
})
