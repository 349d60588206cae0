import fs from 'node:fs'

/** The part of node-postgres's connection a Submittable uses: its socket and the simple-query message. */
interface Connection {
  stream: NodeJS.EventEmitter
  query(text: string): void
}

// Protocol message types (PostgreSQL frontend/backend protocol, version 3).
const COPY_DATA = 0x64 // 'd'
const COPY_OUT_RESPONSE = 0x48 // 'H'
const COPY_DONE = 0x63 // 'c'
const NOTICE_RESPONSE = 0x4e // 'N'
const PARAMETER_STATUS = 0x53 // 'S'
const NOTIFICATION_RESPONSE = 0x41 // 'A'
/** Messages that may come before or between CopyData messages and carry nothing for the output. */
const SKIPPED = new Set([COPY_OUT_RESPONSE, NOTICE_RESPONSE, PARAMETER_STATUS, NOTIFICATION_RESPONSE])

/** How many bytes of output one write to the file takes. */
export const WRITE_BYTES = 1 << 20

/**
 * `COPY (...) TO STDOUT` on a node-postgres client, written into an open file: a Submittable
 * (`client.query(new CopyToFile(text, fd))`, then `await copy.done` for the row count). While the copy runs it reads
 * the connection's socket itself: PostgreSQL sends one CopyData message per row, whose payloads are copied from each
 * network read straight into one buffer of WRITE_BYTES, written (synchronously: meant for a worker thread with
 * nothing else to do) each time it fills. So a row costs a copy of its bytes, no object, and a million rows about
 * 150 writes — a stream of buffers (pg-copy-streams into a file stream) spent as much CPU again allocating them and
 * writing one per network read. CopyDone, or any message foreign to the copy (an error), hands the socket back to
 * node-postgres with the bytes from there on, which ends the query as usual: the row count from its
 * CommandComplete, an error through `handleError`. Node-postgres's socket never pauses meanwhile: writes to a file
 * keep up with a network read.
 */
export class CopyToFile {
  readonly text: string
  /** Settles once node-postgres has finished the query: the number of rows, or the statement's error. */
  readonly done: Promise<number>
  private readonly fd: number
  private rowCount = 0
  private settle!: { resolve: (rows: number) => void; reject: (error: Error) => void }
  private failed: Error | undefined
  private connection: Connection | undefined
  private pgHandler: ((chunk: Buffer) => void) | undefined
  private readonly pending = Buffer.allocUnsafe(WRITE_BYTES)
  private filled = 0
  /** The message being read: its type, and how many bytes of its body are still to come. */
  private type = 0
  private remaining = 0
  /** A message header (type and length, 5 bytes) split across two network reads. */
  private readonly header = Buffer.alloc(5)
  private headerBytes = 0
  private readonly onData = (chunk: Buffer) => {
    try {
      this.parse(chunk)
    } catch (error) {
      // The file could not be written: the query runs on, its output is dropped, and `done` rejects at its end.
      this.failed ??= error as Error
    }
  }

  constructor(text: string, fd: number) {
    this.text = text
    this.fd = fd
    this.done = new Promise((resolve, reject) => {
      this.settle = { resolve, reject }
    })
  }

  submit(connection: Connection): void {
    this.connection = connection
    const socket = connection.stream
    const listeners = socket.listeners('data') as ((chunk: Buffer) => void)[]
    if (listeners.length !== 1) throw new Error('CopyToFile: expected node-postgres as the only reader of its socket')
    this.pgHandler = listeners[0]
    socket.removeListener('data', this.pgHandler!)
    socket.on('data', this.onData)
    connection.query(this.text)
  }

  private parse(chunk: Buffer): void {
    let at = 0
    while (at < chunk.length) {
      if (this.remaining > 0) {
        const n = Math.min(this.remaining, chunk.length - at)
        if (this.type === COPY_DATA && this.failed === undefined) this.gather(chunk, at, at + n)
        at += n
        this.remaining -= n
        continue
      }
      const first = chunk[at]!
      if (this.headerBytes === 0 && first !== COPY_DATA && first !== COPY_DONE && !SKIPPED.has(first)) {
        // An error (or anything unforeseen): node-postgres reads it, from its first byte.
        this.handBack(chunk.subarray(at))
        return
      }
      const n = Math.min(5 - this.headerBytes, chunk.length - at)
      chunk.copy(this.header, this.headerBytes, at, at + n)
      this.headerBytes += n
      at += n
      if (this.headerBytes === 5) {
        this.type = this.header[0]!
        this.remaining = this.header.readUInt32BE(1) - 4
        this.headerBytes = 0
        if (this.type === COPY_DONE) {
          // Consumed here (node-postgres does not expect it): it reads what follows, CommandComplete first.
          this.handBack(chunk.subarray(at))
          return
        }
      }
    }
  }

  /** Copies bytes `start` to `end` of a read into the buffer, writing it out each time it is full. */
  private gather(chunk: Buffer, start: number, end: number): void {
    for (let at = start; at < end;) {
      const n = Math.min(end - at, WRITE_BYTES - this.filled)
      chunk.copy(this.pending, this.filled, at, at + n)
      this.filled += n
      at += n
      if (this.filled === WRITE_BYTES) this.flush()
    }
  }

  private flush(): void {
    for (let written = 0; written < this.filled;)
      written += fs.writeSync(this.fd, this.pending, written, this.filled - written)
    this.filled = 0
  }

  private handBack(rest: Buffer): void {
    try {
      if (this.failed === undefined) this.flush()
    } catch (error) {
      this.failed = error as Error
    }
    const socket = this.connection!.stream
    socket.removeListener('data', this.onData)
    socket.on('data', this.pgHandler!)
    if (rest.length > 0) this.pgHandler!(rest)
  }

  /** The statement's error (ReadyForQuery follows), or the connection's (nothing follows): the copy has failed. */
  handleError(error: Error): void {
    this.failed ??= error
    this.settle.reject(this.failed)
  }

  handleCommandComplete(message: { text?: string }): void {
    const match = /^COPY (\d+)/.exec(message.text ?? '')
    if (match) this.rowCount = Number(match[1])
  }

  handleReadyForQuery(): void {
    if (this.failed) this.settle.reject(this.failed)
    else this.settle.resolve(this.rowCount)
  }
}
