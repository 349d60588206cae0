// The import graph of src/, read from the sources' import and export statements (type-only ones included: a
// circle of types still ties the files together), and the two rules the build holds on it: a module is entered
// through its index.ts only, and no file imports itself back through others. eslint.config.mjs reports both on the
// importing file (rules `obol/module-boundaries` and `obol/no-import-cycle`).
import fs from 'node:fs'
import path from 'node:path'

const ROOT = path.resolve(import.meta.dirname, '../..')
const SRC = path.join(ROOT, 'src')
const MODULES = path.join(SRC, 'modules')
const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^;]*?\sfrom\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g

/** The module (folder under src/modules) a file belongs to, or null outside the modules. */
export function moduleOf(file) {
  const relative = path.relative(MODULES, file)
  return relative.startsWith('..') || path.isAbsolute(relative) ? null : relative.split(path.sep)[0]
}

/**
 * Why importing `target` from `file` crosses a module boundary, or null when it does not: a file outside module M
 * (another module, the kernel, the entry points) reaches M only through src/modules/M/index.ts. Tests may reach in.
 */
export function boundaryViolation(file, target) {
  const into = moduleOf(target)
  if (into === null || into === moduleOf(file) || isTest(file)) return null
  if (path.resolve(target) === path.join(MODULES, into, 'index.ts')) return null
  return `${path.relative(ROOT, target)} is inside module '${into}': import it from src/modules/${into}/index.ts`
}

const isTest = (file) => file.endsWith('.test.ts')

/** The relative imports of one source text, resolved to absolute paths. */
export function importsOf(file, text) {
  const found = []
  for (const match of text.matchAll(IMPORT)) {
    const specifier = match[1] ?? match[2]
    if (specifier.startsWith('.')) found.push(path.resolve(path.dirname(file), specifier))
  }
  return found
}

/** The source files of src/, tests left out. */
export function sourceFiles(dir = SRC) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(full)
    return /\.tsx?$/.test(entry.name) && !isTest(entry.name) ? [full] : []
  })
}

/** The import circles of src/ (each a strongly connected set of files, sorted), empty when there are none. */
export function importCircles() {
  const graph = new Map(sourceFiles().map((file) => [file, importsOf(file, fs.readFileSync(file, 'utf8'))]))
  // Tarjan's strongly connected components.
  let counter = 0
  const stack = []
  const onStack = new Set()
  const index = new Map()
  const low = new Map()
  const circles = []
  const visit = (v) => {
    index.set(v, counter)
    low.set(v, counter)
    counter++
    stack.push(v)
    onStack.add(v)
    for (const w of graph.get(v)) {
      if (!graph.has(w)) continue
      if (!index.has(w)) {
        visit(w)
        low.set(v, Math.min(low.get(v), low.get(w)))
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)))
    }
    if (low.get(v) !== index.get(v)) return
    const component = []
    let w
    do {
      w = stack.pop()
      onStack.delete(w)
      component.push(w)
    } while (w !== v)
    if (component.length > 1 || graph.get(v).includes(v)) circles.push(component.sort())
  }
  for (const v of graph.keys()) if (!index.has(v)) visit(v)
  return circles
}

export const relativeToRoot = (file) => path.relative(ROOT, file)
