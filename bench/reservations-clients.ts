/**
 * The load generator of `bench/reservations.ts`, in a worker thread so the server's event loop is its own (as
 * pgbench's clients are threads apart from the server): `connections` loops of reserve + confirm for `seconds`,
 * each pair on the subscription BSUB_<n> the mode picks (`many`: one of `wallets` at random, `hot`: BSUB_1), each
 * usage line of `quantity` units.
 */
import assert from 'node:assert/strict'
import { parentPort, workerData } from 'node:worker_threads'

export interface ClientsTask {
  readonly base: string
  readonly token: string
  readonly usageTime: string
  readonly connections: number
  readonly seconds: number
  readonly wallets: number
  readonly mode: 'many' | 'hot'
  readonly quantity: number
}

export interface ClientsResult {
  readonly pairs: number
  readonly latencies: number[]
}

const task = workerData as ClientsTask
const auth = { authorization: `Bearer ${task.token}` }
const pick = () => (task.mode === 'hot' ? 1 : 1 + Math.floor(Math.random() * task.wallets))
let pairs = 0
const latencies: number[] = []
const deadline = performance.now() + task.seconds * 1000
const loop = async () => {
  while (performance.now() < deadline) {
    const at = performance.now()
    const reserved = await fetch(`${task.base}/api/rest/billing/mediation/reserveCdr`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'text/plain' },
      body: `${task.usageTime};BSUB_${pick()};${task.quantity};U;bench`,
    })
    const answer = (await reserved.json()) as { reservationId: number }
    assert.equal(reserved.status, 200, JSON.stringify(answer))
    const confirmed = await fetch(`${task.base}/api/rest/billing/mediation/confirmReservation`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ reservationId: answer.reservationId }),
    })
    assert.equal(confirmed.status, 200, await confirmed.text())
    latencies.push(performance.now() - at)
    pairs++
  }
}
await Promise.all(Array.from({ length: task.connections }, loop))
parentPort?.postMessage({ pairs, latencies } satisfies ClientsResult)
