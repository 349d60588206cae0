/**
 * The webhooks benchmark's receiver, a process of its own (forked with an IPC channel): answers every POST 204 at
 * once after checking its signature with the `standardwebhooks` package (as an integrator's receiver would), and
 * keeps, per `webhook-id`, when it first arrived, the event's `occurredAt` and the body. The parent asks by message:
 * `{ secret }` to set the secret, `'reset'`, `'stats'` (answered with the figures and, on `'bodies'`, the bodies).
 */
import http from 'node:http'
import { Webhook } from 'standardwebhooks'

interface Arrival {
  readonly at: number
  readonly occurredAt: number
}

let verifier: Webhook | undefined
let arrivals = new Map<string, Arrival>()
let bodies: string[] = []
let requests = 0
let refused = 0

const server = http.createServer((request, response) => {
  const chunks: Buffer[] = []
  request.on('data', (chunk: Buffer) => chunks.push(chunk))
  request.on('end', () => {
    const at = Date.now()
    const body = Buffer.concat(chunks).toString()
    requests += 1
    const id = String(request.headers['webhook-id'])
    try {
      verifier!.verify(body, {
        'webhook-id': id,
        'webhook-timestamp': String(request.headers['webhook-timestamp']),
        'webhook-signature': String(request.headers['webhook-signature']),
      })
    } catch {
      refused += 1
      response.writeHead(400).end()
      return
    }
    if (!arrivals.has(id)) {
      const occurredAt = Date.parse((JSON.parse(body) as { occurredAt: string }).occurredAt)
      arrivals.set(id, { at, occurredAt })
      bodies.push(body)
    }
    response.writeHead(204).end()
  })
})

process.on('message', (message: unknown) => {
  if (typeof message === 'object' && message !== null && 'secret' in message) {
    verifier = new Webhook((message as { secret: string }).secret)
    process.send!({ ok: true })
  } else if (message === 'reset') {
    arrivals = new Map()
    bodies = []
    requests = 0
    refused = 0
    process.send!({ ok: true })
  } else if (message === 'stats' || message === 'bodies') {
    const all = [...arrivals.values()]
    process.send!({
      requests,
      refused,
      distinct: arrivals.size,
      first: Math.min(...all.map((a) => a.at)),
      last: Math.max(...all.map((a) => a.at)),
      delays: all.map((a) => a.at - a.occurredAt),
      ...(message === 'bodies' ? { bodies } : {}),
    })
  }
})

server.listen(0, '127.0.0.1', () => {
  const address = server.address() as { port: number }
  process.send!({ port: address.port })
})
