import fs from 'node:fs'
import { describe, expect, it } from 'vitest'
import {
  boundaryViolation,
  importCircles,
  importsOf,
  relativeToRoot,
  sourceFiles,
} from '../../scripts/lint/import-graph.mjs'

// The same rules `npm run lint` holds (eslint.config.mjs, rules obol/module-boundaries and obol/no-import-cycle),
// kept by the suite as well so a change that skips the linter still cannot merge a circle or a reach past index.ts.
describe('the import graph of src/', () => {
  it('has no circle', () => {
    expect(importCircles().map((circle) => circle.map(relativeToRoot))).toEqual([])
  })

  it('enters every module through its index.ts', () => {
    const problems = sourceFiles().flatMap((file) =>
      importsOf(file, fs.readFileSync(file, 'utf8'))
        .map((target) => boundaryViolation(file, target))
        .filter((problem) => problem !== null)
        .map((problem) => `${relativeToRoot(file)}: ${problem}`),
    )
    expect(problems).toEqual([])
  })
})
