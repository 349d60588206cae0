import fs from 'node:fs'
import path from 'node:path'
import { sql } from 'drizzle-orm'
import { rows, type Db } from './database.ts'
import { syncQueryRoleGrants } from './query-role-grants.ts'
import { PROJECT_ROOT } from '../project-root.ts'

export const MIGRATIONS_DIR = path.join(PROJECT_ROOT, 'migrations')

// Any constant works: instances starting together serialize on it, so each migration runs once.
const MIGRATION_LOCK = 7_262_001

export function migrationFiles(dir = MIGRATIONS_DIR): string[] {
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.sql'))
    .sort()
}

/** Applies pending migrations in file order, each in the same transaction as its bookkeeping row. */
export async function migrate(db: Db, dir = MIGRATIONS_DIR): Promise<string[]> {
  const applied: string[] = []
  await db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${MIGRATION_LOCK})`)
    await tx.execute(
      sql`create table if not exists obol_schema_migration (name text primary key, applied_at timestamptz not null default now())`,
    )
    const done = new Set(
      (await rows<{ name: string }>(tx, sql`select name from obol_schema_migration`)).map((r) => r.name),
    )
    for (const file of migrationFiles(dir)) {
      if (done.has(file)) continue
      const text = fs.readFileSync(path.join(dir, file), 'utf8')
      for (const statement of text.split('--> statement-breakpoint')) {
        if (statement.trim() !== '') await tx.execute(sql.raw(statement))
      }
      await tx.execute(sql`insert into obol_schema_migration (name) values (${file})`)
      applied.push(file)
    }
    // The registry of this release decides what the query role may read, whether or not a migration ran.
    await syncQueryRoleGrants(tx)
  })
  return applied
}

/** Migrations present on disk but not applied: empty when the database is ready. */
export async function pendingMigrations(db: Db, dir = MIGRATIONS_DIR): Promise<string[]> {
  const exists = await rows<{ t: string | null }>(db, sql`select to_regclass('obol_schema_migration')::text as t`)
  if (!exists[0]?.t) return migrationFiles(dir)
  const done = new Set(
    (await rows<{ name: string }>(db, sql`select name from obol_schema_migration`)).map((r) => r.name),
  )
  return migrationFiles(dir).filter((f) => !done.has(f))
}
