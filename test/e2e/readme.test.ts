import fs from 'node:fs'
import { describe, expect, it } from 'vitest'
import { CONFIG_VARIABLES } from '../../src/kernel/config.ts'

describe('README', () => {
  const readme = fs.readFileSync(new URL('../../README.md', import.meta.url), 'utf8')

  it('lists every configuration variable the process reads, with its default', () => {
    const documented = [...readme.matchAll(/^\|\s*`([A-Z_]+)`\s*\|([^|]+)\|/gm)].map((m) => m[1])
    expect(documented.sort()).toEqual(CONFIG_VARIABLES.map((v) => v.name).sort())
  })

  it('gives the two commands', () => {
    expect(readme).toContain('npm ci && npm start')
    expect(readme).toContain('npm test')
  })
})
