// Which module owns each table, and which tables a source file touches: the rule `obol/table-ownership` holds that
// a module's code reads and writes only its own tables and the kernel's shared ones, and reaches another module's
// data through that module's index.ts (its use cases and lookups). The owner of a table is the schema file that
// declares it: src/kernel/db/schema/<owner>.ts, where <owner> names a folder of src/modules, or one of KERNEL_SCHEMAS
// (reference data, tenant settings, the job runtime, the event log), which every module may use.
// The query layer (src/modules/query) reads every table: it is the registry-based read path the spec describes,
// bounded by the registry and the query role's grants.
import fs from 'node:fs'
import path from 'node:path'

const ROOT = path.resolve(import.meta.dirname, '../..')
const SCHEMA = path.join(ROOT, 'src/kernel/db/schema')
const MODULES = path.join(ROOT, 'src/modules')
export const KERNEL_SCHEMAS = new Set(['reference', 'settings', 'jobs', 'events', 'columns', 'index'])
const READS_EVERYTHING = new Set(['query'])

const TABLE = /export const (\w+) = pgTable\(\s*'([a-z_0-9]+)'/g
// A table named in SQL text: after FROM, JOIN, UPDATE, INTO, or DELETE FROM; optionally schema-qualified or quoted.
const SQL_TABLE = /\b(?:from|join|update|into)\s+(?:only\s+)?(?:public\.)?"?([a-z_][a-z0-9_]*)"?/gi

let ownership = null
/** table name → owner, and schema export name → table name, read from the schema files once per lint run. */
export function tableOwnership() {
  if (ownership !== null) return ownership
  const ownerOf = new Map()
  const tableOfExport = new Map()
  for (const entry of fs.readdirSync(SCHEMA)) {
    if (!entry.endsWith('.ts')) continue
    const owner = entry.slice(0, -3)
    const text = fs.readFileSync(path.join(SCHEMA, entry), 'utf8')
    for (const match of text.matchAll(TABLE)) {
      ownerOf.set(match[2], owner)
      tableOfExport.set(match[1], match[2])
    }
  }
  ownership = { ownerOf, tableOfExport }
  return ownership
}

/** The module (folder of src/modules) a file belongs to, or null outside the modules. */
function moduleOf(file) {
  const relative = path.relative(MODULES, file)
  return relative.startsWith('..') || path.isAbsolute(relative) ? null : relative.split(path.sep)[0]
}

/**
 * Why `file` may not touch `table`, or null when it may: its module owns it, the kernel shares it, or the file is
 * a test or belongs to the query layer.
 */
export function ownershipViolation(file, table) {
  const module = moduleOf(file)
  if (module === null || READS_EVERYTHING.has(module) || file.endsWith('.test.ts')) return null
  const owner = tableOwnership().ownerOf.get(table)
  if (owner === undefined || owner === module || KERNEL_SCHEMAS.has(owner)) return null
  return `table ${table} belongs to module '${owner}': reach it through src/modules/${owner}/index.ts`
}

/** The table names an SQL text names after FROM, JOIN, UPDATE or INTO (only those the schema declares). */
export function tablesInSql(text) {
  const { ownerOf } = tableOwnership()
  return [...text.matchAll(SQL_TABLE)].map((m) => m[1].toLowerCase()).filter((name) => ownerOf.has(name))
}
