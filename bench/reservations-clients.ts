/**
 * The load generator of `bench/reservations.ts`, in a worker thread so the server's event loop is its own (as
 * pgbench's clients are threads apart from the server): `connections` loops of reserve + confirm for `seconds`,
 * each pair on the subscription BSUB_<n> the mode picks (`many`: one of `wallets` at random, `hot`: BSUB_1), each
 * usage line of `quantity` units.
 */
import assert from 'node:assert/strict'
import http from 'node:http'
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
const agent = new http.Agent({ keepAlive: true, maxSockets: task.connections })
const target = new URL(task.base)
/** One POST on a kept-alive connection: its status and body. */
const post = (path: string, contentType: string, body: string) =>
  new Promise<{ status: number; text: string }>((resolve, reject) => {
    const request = http.request(
      {
        agent,
        host: target.hostname,
        port: target.port,
        path,
        method: 'POST',
        headers: { ...auth, 'content-type': contentType, 'content-length': Buffer.byteLength(body) },
      },
      (response) => {
        let text = ''
        response.setEncoding('utf8')
        response.on('data', (chunk: string) => (text += chunk))
        response.on('end', () => resolve({ status: response.statusCode ?? 0, text }))
        response.on('error', reject)
      },
    )
    request.on('error', reject)
    request.end(body)
  })
let pairs = 0
const latencies: number[] = []
const deadline = performance.now() + task.seconds * 1000
const loop = async () => {
  while (performance.now() < deadline) {
    const at = performance.now()
    const reserved = await post(
      '/api/rest/billing/mediation/reserveCdr',
      'text/plain',
      `${task.usageTime};BSUB_${pick()};${task.quantity};U;bench`,
    )
    assert.equal(reserved.status, 200, reserved.text)
    const answer = JSON.parse(reserved.text) as { reservationId: number }
    const confirmed = await post(
      '/api/rest/billing/mediation/confirmReservation',
      'application/json',
      JSON.stringify({ reservationId: answer.reservationId }),
    )
    assert.equal(confirmed.status, 200, confirmed.text)
    latencies.push(performance.now() - at)
    pairs++
  }
}
await Promise.all(Array.from({ length: task.connections }, loop))
parentPort?.postMessage({ pairs, latencies } satisfies ClientsResult)
