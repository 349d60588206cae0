import { describe, expect, it } from 'vitest'
import { lagFromSamples, parseLsn, replicaName } from './replicas.ts'

describe('WAL positions', () => {
  it('orders positions across the 32-bit boundary', () => {
    expect(parseLsn('0/16B3740')).toBe(0x16b3740n)
    expect(parseLsn('1/0') > parseLsn('0/FFFFFFFF')).toBe(true)
    expect(parseLsn('16/B374D848')).toBe((0x16n << 32n) | 0xb374d848n)
  })

  it('refuses what is not a position', () => {
    expect(() => parseLsn('16-B374D848')).toThrow(/not a WAL position/)
    expect(() => parseLsn('1/123456789')).toThrow(/not a WAL position/)
  })
})

describe('replica lag from the primary’s sampled positions', () => {
  const samples = [
    { at: 1000, lsn: 100n },
    { at: 2000, lsn: 200n },
    { at: 3000, lsn: 300n },
  ]

  it('is zero once the replica has replayed the latest sampled position', () => {
    expect(lagFromSamples(samples, 300n, 3500)).toEqual({ lagMs: 0, bounded: true })
    expect(lagFromSamples(samples, 350n, 3500)).toEqual({ lagMs: 0, bounded: true })
  })

  it('is the time since the latest position the replica has replayed', () => {
    expect(lagFromSamples(samples, 250n, 3500)).toEqual({ lagMs: 1500, bounded: true })
    expect(lagFromSamples(samples, 100n, 3500)).toEqual({ lagMs: 2500, bounded: true })
  })

  it('is unbounded behind every sample, and without samples nothing is known', () => {
    expect(lagFromSamples(samples, 50n, 3500)).toEqual({ lagMs: 2500, bounded: false })
    expect(lagFromSamples([], 50n, 3500)).toEqual({ lagMs: 0, bounded: false })
  })
})

describe('replica names', () => {
  it('names host, port and database, never the password', () => {
    expect(replicaName('postgres://obol:secret@replica-1.internal:6432/obol')).toBe('replica-1.internal:6432/obol')
    expect(replicaName('postgresql://obol@10.0.0.7/billing')).toBe('10.0.0.7:5432/billing')
  })
})
