import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openPglite } from '../kernel/db/database.ts'
import { bundleFile, releaseFileBundle, type ReleasedBundle } from './pglite-bundle.ts'

/** The parts of PGlite's Emscripten file system these tests read. */
interface TestFs {
  lookupPath(p: string): { node: { contents: unknown } }
  readdir(p: string): string[]
  isDir(mode: number): boolean
  stat(p: string): { mode: number; size: number }
  readFile(p: string): Uint8Array
  writeFile(p: string, data: string): void
  open(p: string, flags: string): unknown
  write(stream: unknown, data: Uint8Array, offset: number, length: number, position: number): number
  close(stream: unknown): void
}
const fsOf = (pg: PGlite) => (pg as unknown as { mod: { FS: TestFs } }).mod.FS

/** Every file of the bundle (a view into the buffer of pglite.data's size), with a copy of its bytes. */
function bundleFiles(pg: PGlite): { buffer: ArrayBuffer | undefined; files: Map<string, Uint8Array> } {
  const FS = fsOf(pg)
  const size = fs.statSync(bundleFile()).size
  let buffer: ArrayBuffer | undefined
  const files = new Map<string, Uint8Array>()
  const walk = (dir: string): void => {
    for (const name of FS.readdir(dir)) {
      if (name === '.' || name === '..') continue
      const p = `${dir}/${name}`
      if (p === '/pglite/data') continue
      if (FS.isDir(FS.stat(p).mode)) walk(p)
      else {
        const contents = FS.lookupPath(p).node.contents
        if (contents instanceof Uint8Array && contents.buffer.byteLength === size) {
          buffer ??= contents.buffer as ArrayBuffer
          files.set(p, contents.slice())
        }
      }
    }
  }
  walk('/home')
  walk('/pglite')
  return { buffer, files }
}

async function rows(pg: PGlite, text: string): Promise<unknown[]> {
  return (await pg.query(text)).rows
}

describe("PGlite's file bundle read from disk", () => {
  let pg: PGlite
  let before: ReturnType<typeof bundleFiles>
  let released: ReleasedBundle | undefined

  beforeAll(async () => {
    pg = await PGlite.create()
    before = bundleFiles(pg)
    released = releaseFileBundle(pg)
  })
  afterAll(async () => {
    await pg.close()
    released?.close()
  })

  it('frees the buffer and serves every file of the bundle with the same bytes', () => {
    expect(before.files.size).toBeGreaterThan(600)
    expect(released).toMatchObject({ files: before.files.size, bytes: fs.statSync(bundleFile()).size })
    expect(before.buffer?.detached).toBe(true)
    for (const [p, bytes] of before.files) expect(Buffer.from(fsOf(pg).readFile(p)).equals(bytes), p).toBe(true)
    expect(fsOf(pg).stat('/pglite/share/postgresql/postgres.bki').size).toBe(
      before.files.get('/pglite/share/postgresql/postgres.bki')!.length,
    )
  })

  it('lets PostgreSQL read time zones, dictionaries, libraries and ICU data afterwards', async () => {
    // A zone file read on first use, the English stemmer (a library and a stop-word file), plpgsql's library, and
    // ICU's collation data, which ICU maps into memory.
    await pg.exec(`set time zone 'Europe/Paris'`)
    expect(await rows(pg, `select '2026-06-01 12:00Z'::timestamptz::text as t`)).toEqual([
      { t: '2026-06-01 14:00:00+02' },
    ])
    expect(await rows(pg, `select to_tsvector('english', 'the running dogs')::text as v`)).toEqual([
      { v: `'dog':3 'run':2` },
    ])
    await pg.exec(`create function seven() returns int language plpgsql as $$ begin return 7; end $$`)
    expect(await rows(pg, `select seven() as n`)).toEqual([{ n: 7 }])
    expect(await rows(pg, `select 'a' < 'B' collate "und-x-icu" as icu, 'a' < 'B' collate "C" as c`)).toEqual([
      { icu: true, c: false },
    ])
  })

  it('keeps a file written or truncated after the release in memory, with what was written', () => {
    const FS = fsOf(pg)
    const sample = '/pglite/share/postgresql/postgresql.conf.sample'
    const original = before.files.get(sample)!
    const stream = FS.open(sample, 'r+')
    FS.write(stream, new TextEncoder().encode('##'), 0, 2, 0)
    FS.close(stream)
    const written = FS.readFile(sample)
    expect(written.length).toBe(original.length)
    expect(Buffer.from(written.subarray(0, 2)).toString()).toBe('##')
    expect(Buffer.from(written.subarray(2)).equals(original.subarray(2))).toBe(true)

    FS.writeFile('/pglite/share/postgresql/errcodes.txt', 'replaced')
    expect(Buffer.from(FS.readFile('/pglite/share/postgresql/errcodes.txt')).toString()).toBe('replaced')
  })
})

describe("PGlite's file bundle left in memory", () => {
  it('when its bytes are not those of the file on disk', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'obol-bundle-'))
    const other = path.join(dir, 'pglite.data')
    const bytes = fs.readFileSync(bundleFile())
    bytes[bytes.length - 1] = bytes[bytes.length - 1]! ^ 0xff
    fs.writeFileSync(other, bytes)
    const pg = await PGlite.create()
    try {
      const before = bundleFiles(pg)
      expect(releaseFileBundle(pg, other)).toBeUndefined()
      expect(before.buffer?.detached).toBe(false)
      expect(fsOf(pg).lookupPath('/pglite/share/postgresql/postgres.bki').node.contents).toBeInstanceOf(Uint8Array)
      expect(await rows(pg, `select to_tsvector('english', 'dogs')::text as v`)).toEqual([{ v: `'dog':1` }])
    } finally {
      await pg.close()
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('openPglite', () => {
  it('opens the embedded database with its bundle read from disk', async () => {
    const database = await openPglite()
    try {
      expect(bundleFiles(database.pglite!).files.size).toBe(0)
      expect(fsOf(database.pglite!).lookupPath('/pglite/share/postgresql/postgres.bki').node.contents).toBeNull()
      expect(await rows(database.pglite!, `select to_tsvector('english', 'dogs')::text as v`)).toEqual([
        { v: `'dog':1` },
      ])
    } finally {
      await database.close()
    }
  })
})
