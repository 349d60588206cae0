import { describe, expect, it } from 'vitest'
import { dateIn, expertStatement, exportFile, lineAndColumn, safeSegment } from './expert.model.ts'

describe('Expert statements', () => {
  it('puts the row limit outermost, whatever limit, offset or WITH TIES the text holds', () => {
    expect(expertStatement(' select 1 ', { kind: 'select' }, 1000)).toBe(
      'SELECT * FROM (\nselect 1\n) AS expert_result LIMIT 1000',
    )
    for (const text of ['select 1 limit 5', 'select 1 fetch first 1 rows with ties', 'select 1 offset 3'])
      expect(expertStatement(text, { kind: 'select' }, 10)).toBe(
        `SELECT * FROM (\n${text}\n) AS expert_result LIMIT 10`,
      )
  })
  it('leaves EXPLAIN as it is', () => {
    expect(expertStatement('explain select 1', { kind: 'explain' }, 10)).toBe('explain select 1')
  })
})

describe('Export paths', () => {
  it('puts the file under exports/queryStudio/<user>/<date in the tenant zone>', () => {
    const at = new Date('2026-03-01T23:30:00Z')
    expect(exportFile('ann', at, 'Europe/Paris', 7)).toBe('exports/queryStudio/ann/2026-03-02/expert-7.csv')
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
