import { describe, expect, it } from 'vitest'
import { coalescedReads } from './coalesced-reads.ts'
// Two distinct database handles: the reads never touch them, only group by them.
const first = { name: 'first' }
const second = { name: 'second' }
type Handle = typeof first

/** A read that doubles its keys (undefined for negative ones) and records every batch it was sent. */
function doubling() {
  const batches: { db: Handle; keys: readonly number[] }[] = []
  const read = (db: Handle, keys: readonly number[]) => {
    batches.push({ db, keys })
    return Promise.resolve(keys.map((k) => (k < 0 ? undefined : k * 2)))
  }
  return { batches, read }
}

describe('coalesced reads', () => {
  it('sends the keys asked for in one turn of the event loop as one read, and gives each caller its own result', async () => {
    const { batches, read } = doubling()
    const load = coalescedReads(read)
    const answers = await Promise.all([load(first, 1), load(first, 2), load(first, -1), load(first, 3)])
    expect(answers).toEqual([2, 4, undefined, 6])
    expect(batches).toEqual([{ db: first, keys: [1, 2, -1, 3] }])
  })

  it('sends a later turn on its own', async () => {
    const { batches, read } = doubling()
    const load = coalescedReads(read)
    expect(await load(first, 1)).toBe(2)
    expect(await load(first, 5)).toBe(10)
    expect(batches.map((b) => b.keys)).toEqual([[1], [5]])
  })

  it('splits a turn into reads of at most `limit` keys, and keeps each database apart', async () => {
    const { batches, read } = doubling()
    const load = coalescedReads(read, 2)
    const answers = await Promise.all([load(first, 1), load(second, 7), load(first, 2), load(first, 3)])
    expect(answers).toEqual([2, 14, 4, 6])
    expect(batches).toEqual([
      { db: first, keys: [1, 2] },
      { db: first, keys: [3] },
      { db: second, keys: [7] },
    ])
  })

  it('reads each key alone when a read of several failed, so only the failing key is refused', async () => {
    const sent: (readonly number[])[] = []
    const load = coalescedReads((_db: Handle, keys: readonly number[]) => {
      sent.push(keys)
      return keys.includes(13) ? Promise.reject(new Error('out of range')) : Promise.resolve(keys)
    }, 2)
    const answers = await Promise.allSettled([load(first, 13), load(first, 1), load(first, 2)])
    expect(answers).toEqual([
      { status: 'rejected', reason: new Error('out of range') },
      { status: 'fulfilled', value: 1 },
      { status: 'fulfilled', value: 2 },
    ])
    expect(sent).toEqual([[13, 1], [2], [13], [1]])
  })

  it('does not read each key again when the database is unavailable: every caller gets the error at once', async () => {
    const sent: (readonly number[])[] = []
    const unavailable = new Error('Failed query', { cause: new Error('timeout exceeded when trying to connect') })
    const load = coalescedReads((_db: Handle, keys: readonly number[]) => {
      sent.push(keys)
      return Promise.reject(unavailable)
    })
    const answers = await Promise.allSettled([load(first, 1), load(first, 2), load(first, 3)])
    expect(answers.map((a): unknown => a.status === 'rejected' && a.reason)).toEqual([
      unavailable,
      unavailable,
      unavailable,
    ])
    expect(sent).toEqual([[1, 2, 3]])
  })
})
