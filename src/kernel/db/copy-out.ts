import type { FileHandle } from 'node:fs/promises'

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

/** How many bytes of output are gathered before they are written to the file. */
export const WRITE_BYTES = 1 << 20

/**
 * `COPY (...) TO STDOUT` on a node-postgres client, written into an open file: a Submittable
 * (`client.query(new CopyToFile(text, file))`, then `await copy.done` for the row count). While the copy runs it
 * reads the connection's socket itself: PostgreSQL sends one CopyData message per row, whose payloads are copied from
 * each network read straight into a buffer; once it holds WRITE_BYTES it is written to the file while reading goes
 * on into a second one (the socket pauses if that one fills before the write ends). So a row costs a copy of its
 * bytes and no object, a million rows about 150 writes, and memory two buffers — a stream of buffers (pg-copy-streams
 * into a file stream) allocated one per row and wrote one per network read, spending about twice the CPU. CopyDone,
 * or any message foreign to the copy (an error), hands the socket back to node-postgres with the bytes from there
 * on, which ends the query as usual: the row count from its CommandComplete, an error through `handleError`.
 */
export class CopyToFile {
  readonly text: string
  /** Settles once node-postgres has finished the query: the number of rows, or the statement's error. */
  readonly done: Promise<number>
  private readonly file: FileHandle
  private rowCount = 0
  private settle!: { resolve: (rows: number) => void; reject: (error: Error) => void }
  private failed: Error | undefined
  private connection: Connection | undefined
  private pgHandler: ((chunk: Buffer) => void) | undefined
  /** The buffer being filled, how much of it, and the other one (free, or being written). */
  private current = Buffer.allocUnsafe(WRITE_BYTES)
  private filled = 0
  private spare = Buffer.allocUnsafe(WRITE_BYTES)
  private writing: Promise<void> | undefined
  private paused = false
  /** All output written (or the copy failed): set once the copy's messages have ended. */
  private finished: Promise<void> | undefined
  /** The message being read: its type, and how many bytes of its body are still to come. */
  private type = 0
  private remaining = 0
  /** A message header (type and length, 5 bytes) split across two network reads. */
  private readonly header = Buffer.alloc(5)
  private headerBytes = 0
  private readonly onData = (chunk: Buffer) => {
    this.parse(chunk)
    if (this.finished === undefined && this.filled >= WRITE_BYTES) this.rotate()
  }

  constructor(text: string, file: FileHandle) {
    this.text = text
    this.file = file
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
        if (this.type === COPY_DATA) this.gather(chunk, at, at + n)
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

  /** Copies bytes `start` to `end` of a read into the current buffer (made larger in the rare case it must be). */
  private gather(chunk: Buffer, start: number, end: number): void {
    const needed = this.filled + end - start
    if (needed > this.current.length) {
      const larger = Buffer.allocUnsafe(Math.max(needed, 2 * this.current.length))
      this.current.copy(larger, 0, 0, this.filled)
      this.current = larger
    }
    this.filled += chunk.copy(this.current, this.filled, start, end)
  }

  /**
   * Writes the current buffer out and goes on filling the other one; while the other one is still being written,
   * pauses the socket instead, until that write ends.
   */
  private rotate(): void {
    const socket = this.connection!.stream as NodeJS.ReadableStream
    if (this.writing) {
      if (!this.paused) socket.pause()
      this.paused = true
      return
    }
    const full = this.current
    const length = this.filled
    this.current = this.spare
    this.spare = full
    this.filled = 0
    this.writing = this.writeOut(full, length).finally(() => {
      this.writing = undefined
      if (this.paused) {
        this.paused = false
        if (this.filled >= WRITE_BYTES) this.rotate()
        socket.resume()
      }
    })
  }

  private async writeOut(bytes: Buffer, length: number): Promise<void> {
    try {
      for (let written = 0; written < length;)
        written += (await this.file.write(bytes, written, length - written)).bytesWritten
    } catch (error) {
      // The file could not be written: the query runs to its end, its output dropped, and `done` rejects.
      this.failed ??= error as Error
    }
  }

  /** After the copy's last message: the write under way, then what is left in the current buffer. */
  private async writeRest(): Promise<void> {
    await this.writing
    await this.writeOut(this.current, this.filled)
  }

  private handBack(rest: Buffer): void {
    this.finished = this.writeRest()
    const socket = this.connection!.stream
    socket.removeListener('data', this.onData)
    socket.on('data', this.pgHandler!)
    if (rest.length > 0) this.pgHandler!(rest)
  }

  /** The statement's error (ReadyForQuery follows), or the connection's (nothing follows): the copy has failed. */
  handleError(error: Error): void {
    this.failed ??= error
    void this.settled()
  }

  handleCommandComplete(message: { text?: string }): void {
    const match = /^COPY (\d+)/.exec(message.text ?? '')
    if (match) this.rowCount = Number(match[1])
  }

  handleReadyForQuery(): void {
    void this.settled()
  }

  /** Settles `done` once no write is under way (the caller closes the file then). */
  private async settled(): Promise<void> {
    await (this.finished ?? this.writing)
    if (this.failed) this.settle.reject(this.failed)
    else this.settle.resolve(this.rowCount)
  }
}
