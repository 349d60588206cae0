import { describe, expect, it } from 'vitest'
import { dateIn, expertStatement, exportFile, lineAndColumn, safeSegment } from './expert.model.ts'

describe('Expert statements', () => {
  it('appends the row limit when the query has none', () => {
    expect(expertStatement(' select 1 ', { kind: 'select', limit: null }, 1000)).toBe('select 1\nLIMIT 1000')
  })
  it('keeps a constant limit within the row limit and caps a larger or computed one', () => {
    expect(expertStatement('select 1 limit 5', { kind: 'select', limit: 5 }, 1000)).toBe('select 1 limit 5')
    expect(expertStatement('select 1 limit 5000', { kind: 'select', limit: 5000 }, 1000)).toBe(
      'SELECT * FROM (\nselect 1 limit 5000\n) AS expert_result LIMIT 1000',
    )
    expect(expertStatement('select 1 limit all', { kind: 'select', limit: undefined }, 10)).toContain('LIMIT 10')
  })
  it('leaves EXPLAIN as it is', () => {
    expect(expertStatement('explain select 1', { kind: 'explain', limit: undefined }, 10)).toBe('explain select 1')
  })
})

describe('Export paths', () => {
  it('puts the file under exports/queryStudio/<user>/<date in the tenant zone>', () => {
    const at = new Date('2026-03-01T23:30:00Z')
    expect(exportFile('/x', 'ann', at, 'Europe/Paris', 7)).toBe('/x/exports/queryStudio/ann/2026-03-02/expert-7.csv')
    expect(dateIn(at, 'UTC')).toBe('2026-03-01')
  })
  it('never lets a user name leave its directory', () => {
    expect(safeSegment('../etc')).toBe('.._etc')
    expect(safeSegment('..')).toBe('_')
    expect(safeSegment('a/b c')).toBe('a_b_c')
  })
  it('turns an offset into a line and column', () => {
    expect(lineAndColumn('select\n  1;', 10)).toEqual({ line: 2, column: 4 })
  })
})
