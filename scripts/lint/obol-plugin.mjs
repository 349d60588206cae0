// Local ESLint rules over the import graph (scripts/lint/import-graph.mjs).
import path from 'node:path'
import { boundaryViolation, importCircles, relativeToRoot } from './import-graph.mjs'

const sourceOf = (node) => (typeof node.source?.value === 'string' ? node.source : null)

const moduleBoundaries = {
  meta: { type: 'problem', docs: { description: 'modules import each other only through their index.ts' } },
  create(context) {
    const check = (node) => {
      const source = sourceOf(node)
      if (source === null || !source.value.startsWith('.')) return
      const problem = boundaryViolation(context.filename, path.resolve(path.dirname(context.filename), source.value))
      if (problem !== null) context.report({ node: source, message: problem })
    }
    return {
      ImportDeclaration: check,
      ExportNamedDeclaration: check,
      ExportAllDeclaration: check,
      ImportExpression: check,
    }
  },
}

let circles = null
const noImportCycle = {
  meta: { type: 'problem', docs: { description: 'no file of src/ imports itself back through others' } },
  create(context) {
    return {
      Program(node) {
        circles ??= importCircles()
        const circle = circles.find((c) => c.includes(path.resolve(context.filename)))
        if (circle) context.report({ node, message: `import circle: ${circle.map(relativeToRoot).join(' ↔ ')}` })
      },
    }
  },
}

export default { rules: { 'module-boundaries': moduleBoundaries, 'no-import-cycle': noImportCycle } }
