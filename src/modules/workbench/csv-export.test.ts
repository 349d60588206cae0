import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { setImmediate as nextTurn } from 'node:timers/promises'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { onPostgres } from '../../../test/support/test-database.ts'
import { openPglite, type Database } from '../../kernel/db/database.ts'
import { ExportTooLargeError, type CsvExport } from './csv-export.ts'
import { expertExportOf } from './expert-export.driver.ts'
import type { ExpertExport } from './expert-export.ts'

// The embedded export reads a cursor and writes the CSV itself: byte for byte what PostgreSQL's COPY writes.
describe.skipIf(onPostgres)('Expert exports on the embedded database (PGlite only)', () => {
  let database: Database
  let exporter: ExpertExport
  let dir: string
  beforeAll(async () => {
    database = await openPglite({ loadDataDir: new Blob([fs.readFileSync(inject('pgliteTemplate'))]) })
    exporter = expertExportOf(database)
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'obol-csv-'))
  })
  afterAll(async () => {
    await database.close()
    fs.rmSync(dir, { recursive: true, force: true })
  })

  let files = 0
  async function exported(text: string, options: Partial<CsvExport> = {}): Promise<{ rows: number; csv: Buffer }> {
    const file = path.join(dir, `export-${++files}.csv`)
    const rows = await exporter.exportCsv(
      { text, kind: 'select', statementTimeoutMs: 1000, tag: `test-${files}`, maxBytes: 1 << 30, ...options },
      file,
    )
    return { rows, csv: fs.readFileSync(file) }
  }

  async function copyOf(text: string): Promise<Buffer> {
    const result = await database.pglite!.query(`COPY (${text}) TO '/dev/blob' WITH (FORMAT csv, HEADER)`)
    return Buffer.from(await result.blob!.arrayBuffer())
  }

  it.each([
    [
      'quoting: commas, quotes, CR and LF, empty strings, NULL, \\. among other columns, non-ASCII, quoted headers',
      `select * from (values
        (1, 'plain', null::text, ''),
        (2, 'a,b', 'quote "x"', E'line\\nbreak'),
        (3, E'cr\\rhere', '\\.', ' lead space '),
        (4, 'é ü 中文 🙂', 'x"', '"'),
        (5, null, '', '\\N')
      ) as v(n, "a,b", "quote""d", "new
line")`,
      5,
    ],
    ['\\. alone on a line (one column) is quoted, in the header too', `select '\\.' as "\\." union all select ''`, 2],
    [
      'types written by their output functions',
      `select 1.50::numeric as amount, true as flag, '2026-01-01T10:00:00Z'::timestamptz as at, '2026-03-01'::date as day,
        '{1,2,null}'::int[] as list, '{"a": [1, "x,y"]}'::jsonb as doc, '\\xdeadbeef'::bytea as bytes,
        1e300::float8 as big, 'NaN'::float8 as nan, interval '1 day 2 hours' as span, '{"a,b","c"}'::text[] as texts`,
      1,
    ],
    ['no rows: the header line alone', 'select 1 as one where false', 0],
    ['duplicate and unnamed columns', 'select * from (select 1 as a, 2 as a, 3) as q', 1],
    [
      'many batches',
      `select g, repeat('x', g % 7) as pad, g % 3 = 0 as third from generate_series(1, 30000) as g`,
      30000,
    ],
  ])('%s', async (_name, text, count) => {
    const { rows, csv } = await exported(text)
    expect(csv.toString()).toBe((await copyOf(text)).toString())
    expect(csv.equals(await copyOf(text))).toBe(true)
    expect(rows).toBe(count)
  })

  it('stops past the byte cap (the file holds at most the cap) and frees the cursor', async () => {
    const text = `select repeat('x', 100000) as wide from generate_series(1, 20) as g`
    const file = path.join(dir, 'too-large.csv')
    const capped = { text, kind: 'select', statementTimeoutMs: 1000, tag: 'capped', maxBytes: 1 << 20 } as const
    await expect(exporter.exportCsv(capped, file)).rejects.toBeInstanceOf(ExportTooLargeError)
    expect(fs.statSync(file).size).toBeLessThanOrEqual(1 << 20)
    // The cursor is closed: the same tag declares again.
    expect((await exported(text, { tag: 'capped' })).rows).toBe(20)
  })

  it('refuses a result whose temporary file passes 16 times the byte cap before writing any row', async () => {
    const text = `select repeat('x', 1000000) as wide from generate_series(1, 200) as g`
    const file = path.join(dir, 'far-too-large.csv')
    await expect(
      exporter.exportCsv({ text, kind: 'select', statementTimeoutMs: 1000, tag: 'far', maxBytes: 1 << 20 }, file),
    ).rejects.toBeInstanceOf(ExportTooLargeError)
    expect(fs.existsSync(file)).toBe(false)
  })

  it('ends at the next batch once aborted, as a cancelled statement', async () => {
    const before = new AbortController()
    before.abort()
    await expect(
      exported('select g from generate_series(1, 10) as g', { signal: before.signal }),
    ).rejects.toMatchObject({ code: '57014' })
    // Aborted once rows are written: the export stops after the batch it is writing, far from its end.
    const text = 'select g from generate_series(1, 1000000) as g'
    const file = path.join(dir, 'aborted.csv')
    const abort = new AbortController()
    const running = exporter.exportCsv(
      { text, kind: 'select', statementTimeoutMs: 1000, tag: 'aborted', maxBytes: 1 << 30, signal: abort.signal },
      file,
    )
    let atAbort = 0
    while (atAbort === 0) {
      await nextTurn()
      atAbort = fs.existsSync(file) ? fs.statSync(file).size : 0
    }
    abort.abort()
    await expect(running).rejects.toMatchObject({ code: '57014' })
    const written = fs.statSync(file).size
    const whole = (await copyOf(text)).length
    expect(written - atAbort).toBeLessThan(2 * (1 << 20))
    expect(written).toBeLessThan(whole / 4)
  })

  it('fails with the database error of the statement and leaves no cursor', async () => {
    await expect(
      exported('select 1 / (g - 3) from generate_series(1, 5) as g', { tag: 'broken' }),
    ).rejects.toMatchObject({ code: '22012', message: 'division by zero' })
    expect((await exported('select 1 as one', { tag: 'broken' })).rows).toBe(1)
  })
})
