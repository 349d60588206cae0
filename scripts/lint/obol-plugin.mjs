// Local ESLint rules over the import graph (scripts/lint/import-graph.mjs).
import path from 'node:path'
import { boundaryViolation, importCircles, relativeToRoot } from './import-graph.mjs'
import { ownershipViolation, tableOwnership, tablesInSql } from './table-ownership.mjs'

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

const SCHEMA_DIR = path.join(import.meta.dirname, '../../src/kernel/db/schema')

const tableOwnershipRule = {
  meta: {
    type: 'problem',
    docs: {
      description: "a module's code touches only its own tables and the kernel's (scripts/lint/table-ownership.mjs)",
    },
  },
  create(context) {
    const file = context.filename
    const report = (node, table) => {
      const problem = ownershipViolation(file, table)
      if (problem !== null) context.report({ node, message: problem })
    }
    const sqlText = (node, text) => {
      for (const table of new Set(tablesInSql(text))) report(node, table)
    }
    return {
      ImportDeclaration(node) {
        if (typeof node.source.value !== 'string' || !node.source.value.startsWith('.')) return
        const target = path.resolve(path.dirname(file), node.source.value)
        if (path.dirname(target) !== path.resolve(SCHEMA_DIR)) return
        const { tableOfExport } = tableOwnership()
        for (const specifier of node.specifiers) {
          if (specifier.type !== 'ImportSpecifier') continue
          const table = tableOfExport.get(specifier.imported.name ?? specifier.imported.value)
          if (table !== undefined) report(specifier, table)
        }
      },
      TemplateLiteral(node) {
        sqlText(node, node.quasis.map((q) => q.value.cooked ?? q.value.raw).join(' ? '))
      },
      Literal(node) {
        if (typeof node.value === 'string') sqlText(node, node.value)
      },
    }
  },
}

export default {
  rules: {
    'module-boundaries': moduleBoundaries,
    'no-import-cycle': noImportCycle,
    'table-ownership': tableOwnershipRule,
  },
}
