import http from 'node:http'
import net from 'node:net'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { ADMIN, startServer, useCli, type Server } from '../support/cli.ts'

const { root } = useCli()

/** What one request of a client got. */
type Outcome =
  | { kind: 'answered'; status: number; close: boolean; retryAfter: string | undefined; complete: boolean }
  // The connection could not be opened: the request was never sent (the server no longer accepts).
  | { kind: 'refused' }
  // The request was written and its connection ended without a complete answer.
  | { kind: 'reset'; code: string | undefined; clientsFault: boolean }

/**
 * A client of its own keep-alive Agent. For each connection it remembers whether the server announced closing it
 * (`Connection: close`) and whether the server's end of it (FIN) arrived, in the order things happened, so a reset
 * can be told apart: a request written on a connection already announced or ended by the server is the client's
 * fault; any other is the server resetting a request in flight.
 */
function client(base: string, token: string, sockets: number) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: sockets })
  const closedBeforeWrite = new WeakSet<net.Socket>()
  const watched = new WeakSet<net.Socket>()
  const send = (url: string) =>
    new Promise<Outcome>((resolve) => {
      let written = false
      let clientsFault = false
      const request = http.request(`${base}${url}`, { agent, headers: { authorization: `Bearer ${token}` } })
      request.on('socket', (socket: net.Socket) => {
        if (!watched.has(socket)) {
          watched.add(socket)
          socket.on('end', () => closedBeforeWrite.add(socket))
        }
      })
      request.on('finish', () => {
        written = true
        clientsFault = request.socket !== null && closedBeforeWrite.has(request.socket)
      })
      request.on('response', (response) => {
        const close = response.headers.connection === 'close'
        // The Agent drops a connection announced closing; a request after it on the same one would be our fault.
        if (close) closedBeforeWrite.add(response.socket)
        let bytes = 0
        response.on('data', (chunk: Buffer) => (bytes += chunk.length))
        response.on('end', () =>
          resolve({
            kind: 'answered',
            status: response.statusCode!,
            close,
            retryAfter: response.headers['retry-after'],
            complete: bytes === Number(response.headers['content-length']),
          }),
        )
        response.on('error', (error: NodeJS.ErrnoException) =>
          resolve({ kind: 'reset', code: error.code, clientsFault }),
        )
      })
      request.on('error', (error: NodeJS.ErrnoException) =>
        resolve(
          error.code === 'ECONNREFUSED' && !written
            ? { kind: 'refused' }
            : { kind: 'reset', code: error.code, clientsFault },
        ),
      )
      request.end()
    })
  return { send, close: () => agent.destroy() }
}

/** A raw connection that sends the head of a request with a body and waits for the server's `100 Continue`. */
async function slowUpload(server: Server, token: string, url: string, body: string) {
  const socket = net.connect(Number(new URL(server.base).port), '127.0.0.1')
  let received = ''
  socket.setEncoding('utf8').on('data', (chunk: string) => (received += chunk))
  const ended = new Promise<string>((resolve) => socket.once('close', () => resolve(received)))
  await new Promise<void>((resolve) => socket.once('connect', resolve))
  socket.write(
    `POST ${url} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nExpect: 100-continue\r\n\r\n`,
  )
  // The server has read the request's head: a request received before the stop.
  await new Promise<void>((resolve) => {
    const check = () => {
      if (received.includes('100 Continue\r\n\r\n')) {
        socket.off('data', check)
        resolve()
      }
    }
    socket.on('data', check)
  })
  // Not end(): a client closing its side aborts the request it sent (Node's server does not allow half-open).
  return { finish: () => socket.write(body), ended }
}

describe('obol start: SIGTERM under load', { timeout: 120_000 }, () => {
  it('answers what it received, 503s later requests with Connection: close, resets none, and exits 0', async () => {
    const server = await startServer(path.join(root, 'stop'), { LOG_LEVEL: 'info' })
    const tokenResponse = await fetch(`${server.base}/auth/realms/obol/protocol/openid-connect/token`, {
      method: 'POST',
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: ADMIN.clientId,
        client_secret: ADMIN.clientSecret,
      }),
    })
    const token = ((await tokenResponse.json()) as { access_token: string }).access_token
    const stopping = new Promise<void>((resolve) => {
      const check = () => {
        if (server.output().includes('shutting down')) {
          server.child.stdout!.off('data', check)
          resolve()
        }
      }
      server.child.stdout!.on('data', check)
    })

    // 16 connections sending without pause (a token check, and a Query API read of the database, in turn) until
    // the server refuses to connect; 4 more that are idle when the stop begins and send once it has.
    const busy = client(server.base, token, 16)
    const idle = client(server.base, token, 4)
    const urls = ['/api/v1/auth/session', '/api/v1/query/language?limit=5']
    const busyOutcomes: Outcome[] = []
    let answeredBeforeStop = 0
    let loaded: () => void = () => undefined
    const underLoad = new Promise<void>((resolve) => (loaded = resolve))
    const lanes = Array.from({ length: 16 }, async (_, lane) => {
      for (let i = 0; ; i++) {
        const outcome = await busy.send(urls[(lane + i) % 2]!)
        busyOutcomes.push(outcome)
        if (outcome.kind !== 'answered') return
        if (++answeredBeforeStop === 400) loaded()
      }
    })
    const idleFirst = await Promise.all(Array.from({ length: 4 }, () => idle.send(urls[0]!)))
    expect(idleFirst.map((o) => o.kind === 'answered' && o.status)).toEqual([200, 200, 200, 200])
    // Two slow requests in flight: a body still to come, and an answer of 750 kB not read yet.
    const upload = await slowUpload(server, token, '/api/v1/query/language', '{"limit":1}')
    const download = net.connect(Number(new URL(server.base).port), '127.0.0.1')
    let downloaded = ''
    const downloadEnded = new Promise<string>((resolve) => download.once('close', () => resolve(downloaded)))
    download.setEncoding('utf8').once('data', (chunk: string) => {
      downloaded += chunk
      download.pause()
    })
    download.write('GET /api/openapi.json HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n')
    await underLoad

    server.child.kill('SIGTERM')
    await stopping
    const idleAfter = await Promise.all(Array.from({ length: 4 }, () => idle.send(urls[0]!)))
    upload.finish()
    download.on('data', (chunk: string) => (downloaded += chunk)).resume()
    await Promise.all(lanes)
    const exit = await server.exited
    busy.close()
    idle.close()

    expect(exit.code, exit.stdout + exit.stderr).toBe(0)
    // Every request either got its whole answer, or a 503 telling the client to go elsewhere, or was never sent.
    const resets = busyOutcomes.filter((o) => o.kind === 'reset')
    expect(resets.filter((o) => !o.clientsFault)).toEqual([])
    for (const outcome of busyOutcomes.filter((o) => o.kind === 'answered')) {
      expect(outcome.complete).toBe(true)
      expect([200, 503]).toContain(outcome.status)
      if (outcome.status === 503) expect(outcome).toMatchObject({ close: true, retryAfter: '1' })
    }
    // Each lane ended refused to connect once the server stopped accepting, never by a reset.
    expect(busyOutcomes.filter((o) => o.kind === 'refused')).toHaveLength(16 - resets.length)
    // The connections idle at the stop stayed open, and their next request was answered 503 with Connection: close.
    expect(idleAfter).toEqual(
      Array.from({ length: 4 }, () => ({
        kind: 'answered',
        status: 503,
        close: true,
        retryAfter: '1',
        complete: true,
      })),
    )
    // The requests in flight at the stop were answered in full.
    const uploaded = await upload.ended
    expect(uploaded).toMatch(/\r\n\r\nHTTP\/1\.1 200 OK\r\n/)
    expect(uploaded.toLowerCase()).toContain('connection: close')
    expect(JSON.parse(uploaded.slice(uploaded.lastIndexOf('\r\n\r\n') + 4))).toMatchObject({ limit: 1, offset: 0 })
    const answer = await downloadEnded
    const length = Number(/content-length: (\d+)/i.exec(answer)?.[1])
    expect(answer).toMatch(/^HTTP\/1\.1 200 OK\r\n/)
    expect(Buffer.byteLength(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toBe(length)
    expect(length).toBeGreaterThan(500_000)
  })
})
