import net from 'node:net'
import type { IncomingMessage } from 'node:http'
import type { FastifyInstance } from 'fastify'
import { AppError } from '../errors.ts'

/**
 * How long a keep-alive connection idle at the stop (or left idle by a response begun before it) stays open. A client
 * using the connection sends its next request within that and is answered 503 with `Connection: close`; closing it at
 * once would reset a request the client is writing at that moment (ECONNRESET), as `http.Server#close` does with
 * `closeIdleConnections`. A client that sends after the grace meets the race every HTTP/1.1 server has at its
 * keep-alive timeout (RFC 9112 §9.3.1: the client retries).
 */
export const STOP_IDLE_GRACE_MS = 2000
/** What a request refused during the stop is told: retry in a second, elsewhere (this instance no longer accepts). */
const RETRY_AFTER_SEC = 1

interface Connection {
  /** Requests received on it and not yet answered (more than one when a client pipelines). */
  active: number
  /** performance.now() when it last finished a response (or was opened). */
  idleSince: number
  timer: NodeJS.Timeout | undefined
}

export interface GracefulStop {
  /**
   * Stops serving without resetting a request: the listener closes (new connections are refused); requests already
   * received are answered, with `Connection: close`; a request arriving on an open connection gets 503
   * SERVICE_UNAVAILABLE with `Connection: close` and `Retry-After`; an idle connection closes after
   * STOP_IDLE_GRACE_MS. Resolves once every connection is closed, or after `timeoutMs`, destroying those left;
   * `cut` counts the requests still running then.
   */
  stop(timeoutMs: number): Promise<{ cut: number }>
}

/**
 * The stop of an app's HTTP server (docs/decisions.md, "Stopping"), installed before the routes' hooks so that a
 * refused request reads nothing. `keepServing(url)` names the routes answered as usual during the stop (health and
 * metrics: a load balancer reads readiness's own 503).
 */
export function installGracefulStop(app: FastifyInstance, keepServing: (url: string) => boolean): GracefulStop {
  const server = app.server
  const connections = new Map<net.Socket, Connection>()
  // Requests whose headers were read after the stop began: new work, refused.
  const late = new WeakSet<IncomingMessage>()
  let stoppedAt: number | undefined
  let allClosed: (() => void) | undefined

  const closeWhenIdle = (socket: net.Socket, connection: Connection) => {
    if (stoppedAt === undefined || connection.active > 0) return
    clearTimeout(connection.timer)
    const wait = Math.max(connection.idleSince, stoppedAt) + STOP_IDLE_GRACE_MS - performance.now()
    connection.timer = setTimeout(() => {
      if (connection.active === 0) socket.destroy()
    }, wait)
  }

  server.on('connection', (socket: net.Socket) => {
    const connection: Connection = { active: 0, idleSince: performance.now(), timer: undefined }
    connections.set(socket, connection)
    socket.once('close', () => {
      clearTimeout(connection.timer)
      connections.delete(socket)
      if (connections.size === 0) allClosed?.()
    })
  })
  // Before Fastify's own listener, which may run the first hooks at once.
  server.prependListener('request', (request: IncomingMessage, response) => {
    if (stoppedAt !== undefined) late.add(request)
    const connection = connections.get(request.socket)
    if (!connection) return
    connection.active++
    clearTimeout(connection.timer)
    response.once('close', () => {
      connection.active--
      connection.idleSince = performance.now()
      closeWhenIdle(request.socket, connection)
    })
  })

  // Callback hooks: every request runs them, and they wait for nothing.
  app.addHook('onRequest', (request, _reply, done) => {
    if (late.has(request.raw) && !keepServing(request.url))
      done(
        new AppError('SERVICE_UNAVAILABLE', 'The server is stopping: send the request again on a new connection', {
          headers: { 'retry-after': String(RETRY_AFTER_SEC) },
        }),
      )
    else done()
  })
  // Every answer given during the stop closes its connection, so the client opens a new one (elsewhere).
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (stoppedAt !== undefined) void reply.header('connection', 'close')
    done(null, payload)
  })

  return {
    async stop(timeoutMs) {
      stoppedAt = performance.now()
      // Stops accepting, without http.Server#close's closeIdleConnections (see STOP_IDLE_GRACE_MS).
      net.Server.prototype.close.call(server)
      for (const [socket, connection] of connections) closeWhenIdle(socket, connection)
      if (connections.size > 0) {
        let deadline: NodeJS.Timeout | undefined
        await new Promise<void>((resolve) => {
          allClosed = resolve
          deadline = setTimeout(resolve, timeoutMs)
        })
        clearTimeout(deadline)
      }
      let cut = 0
      for (const [socket, connection] of connections) {
        cut += connection.active
        socket.destroy()
      }
      return { cut }
    },
  }
}
