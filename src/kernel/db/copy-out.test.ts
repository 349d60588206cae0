import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { PassThrough } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { CopyToFile, WRITE_BYTES } from './copy-out.ts'

/** One protocol message: its type byte, its length (itself included) and its body. */
function message(type: string, body: string | Buffer): Buffer {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body
  const header = Buffer.alloc(5)
  header.write(type, 0)
  header.writeUInt32BE(bytes.length + 4, 1)
  return Buffer.concat([header, bytes])
}

/**
 * Feeds `wire` to a CopyToFile as a socket would, cut into reads of `size` bytes, with a stand-in for node-postgres's
 * reader; then ends the query as node-postgres would. Answers the file written and what node-postgres was handed back.
 */
async function copy(
  wire: Buffer,
  size: number,
  back: Buffer,
  error?: Error,
): Promise<{ file: string; handedBack: Buffer }> {
  const socket = new PassThrough()
  const handedBack: Buffer[] = []
  socket.on('data', (chunk: Buffer) => handedBack.push(chunk))
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'obol-copy-')), 'out.csv')
  const handle = await fs.promises.open(file, 'w')
  const copy = new CopyToFile('COPY (select 1) TO STDOUT', handle)
  copy.submit({ stream: socket, query: () => undefined })
  for (let at = 0; at < wire.length; at += size) socket.write(wire.subarray(at, at + size))
  // Node-postgres ends the query once it has read what the copy handed back (the copy may pause the socket meanwhile).
  for (let i = 0; i < 1000 && Buffer.concat(handedBack).length < back.length; i++)
    await new Promise((resolve) => setTimeout(resolve, 1))
  if (error) copy.handleError(error)
  copy.handleCommandComplete({ text: 'COPY 2' })
  copy.handleReadyForQuery()
  try {
    if (error) await expect(copy.done).rejects.toBe(error)
    else expect(await copy.done).toBe(2)
  } finally {
    await handle.close()
  }
  const written = fs.readFileSync(file, 'utf8')
  fs.rmSync(path.dirname(file), { recursive: true })
  return { file: written, handedBack: Buffer.concat(handedBack) }
}

const rows = ['code,amount\n', 'WO_1,"12,50"\n', 'WO_2,3\n']
const tail = Buffer.concat([message('C', 'COPY 2\0'), message('Z', 'I')])
const copyOut = message('H', Buffer.from([0, 0, 0]))

describe('CopyToFile', () => {
  it('writes the rows of the CopyData messages and hands node-postgres what follows CopyDone, however the reads cut', async () => {
    const wire = Buffer.concat([
      copyOut,
      ...rows.map((row) => message('d', row)),
      message('N', 'a notice\0'),
      message('c', ''),
      tail,
    ])
    for (const size of [1, 2, 3, 5, 7, 64, wire.length]) {
      const { file, handedBack } = await copy(wire, size, tail)
      expect(file, `reads of ${size} bytes`).toBe(rows.join(''))
      expect(handedBack.equals(tail), `reads of ${size} bytes`).toBe(true)
    }
  })

  it('writes output larger than its buffer whole', async () => {
    const row = `${'x'.repeat(999)}\n`
    const count = Math.ceil((2.5 * WRITE_BYTES) / row.length)
    const wire = Buffer.concat([
      copyOut,
      ...Array.from({ length: count }, () => message('d', row)),
      message('c', ''),
      tail,
    ])
    const { file } = await copy(wire, 65_536, tail)
    expect(file.length).toBe(count * row.length)
    expect(file).toBe(row.repeat(count))
  })

  it('hands an error back from its first byte, after writing the rows before it, and fails with it', async () => {
    const error = Buffer.concat([message('E', 'SERROR\0C57014\0Mcanceling statement due to user request\0\0'), tail])
    const wire = Buffer.concat([copyOut, message('d', rows[0]!), error])
    for (const size of [1, 4, wire.length]) {
      const { file, handedBack } = await copy(wire, size, error, new Error('canceling statement due to user request'))
      expect(file).toBe(rows[0])
      expect(handedBack.equals(error)).toBe(true)
    }
  })
})
