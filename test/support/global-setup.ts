import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import pg from 'pg'
import type { TestProject } from 'vitest/node'
import { openPglite, openPostgres } from '../../src/kernel/db/database.ts'
import { migrate, migrationFiles } from '../../src/kernel/db/migrate.ts'

declare module 'vitest' {
  export interface ProvidedContext {
    /** PGlite: path of a dump of a migrated database, loaded by each test file. */
    pgliteTemplate: string
    /** PostgreSQL: name of a migrated template database (when TEST_DATABASE_URL is set). */
    postgresTemplate: string
    /** Prefix of this run's test databases: several runs may share one server, each cleans up only its own. */
    postgresRunPrefix: string
  }
}

/** Migrates one template database per run; each test file then gets its own copy of it. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const url = process.env.TEST_DATABASE_URL
  const stamp = migrationFiles().join('|').length.toString(36) + Date.now().toString(36)
  if (url) {
    const template = `obol_tpl_${stamp}_${process.pid}`
    const admin = new pg.Client({ connectionString: url })
    await admin.connect()
    await admin.query(`create database ${template}`)
    const target = new URL(url)
    target.pathname = `/${template}`
    const database = openPostgres(target.toString(), { max: 1 })
    await migrate(database.db)
    await database.close()
    const runPrefix = `obol_t_${stamp}_${process.pid}_`
    project.provide('postgresTemplate', template)
    project.provide('postgresRunPrefix', runPrefix)
    project.provide('pgliteTemplate', '')
    return async () => {
      await admin.query(`drop database if exists ${template} with (force)`)
      // Databases of this run's test files that crashed before their own cleanup (other runs keep theirs).
      const leftovers = await admin.query<{ datname: string }>(
        `select datname from pg_database where starts_with(datname, $1)`,
        [runPrefix],
      )
      for (const row of leftovers.rows)
        await admin.query(`drop database if exists ${row.datname} with (force)`).catch(() => undefined)
      await admin.end()
    }
  }
  const database = await openPglite()
  await migrate(database.db)
  const dump = await database.pglite!.dumpDataDir('none')
  await database.close()
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'obol-test-'))
  const file = path.join(dir, 'template.tar')
  fs.writeFileSync(file, Buffer.from(await dump.arrayBuffer()))
  project.provide('pgliteTemplate', file)
  project.provide('postgresTemplate', '')
  project.provide('postgresRunPrefix', '')
  return async () => {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}
