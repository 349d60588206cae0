import fs from 'node:fs'
import { describe, expect, it } from 'vitest'
import { ERROR_CODES } from '../../src/kernel/errors.ts'

describe('docs/errors.md', () => {
  it('lists exactly the error codes of the code, with the same status and ErrorV1 code', () => {
    const doc = fs.readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8')
    const documented = doc
      .split('\n')
      .filter((line) => /^\|\s*[A-Z_]+\s*\|\s*\d{3}\s*\|/.test(line))
      .map((line) => line.split('|').map((cell) => cell.trim()))
      .map((cells) => ({ code: cells[1], status: Number(cells[2]), v1: cells[3] }))
    const actual = Object.entries(ERROR_CODES).map(([code, e]) => ({ code, status: e.status, v1: e.v1 }))
    expect(documented).toEqual(actual)
  })
})
