import fs from 'node:fs'
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { afterAll, beforeAll, inject } from 'vitest'
import { openPglite, openPostgres, type Database } from '../../src/kernel/db/database.ts'

/** True when the suite runs against a PostgreSQL server (CI sets TEST_DATABASE_URL). */
export const onPostgres = Boolean(process.env.TEST_DATABASE_URL)

/** A fresh database for one test file, cloned from the migrated template. */
export async function createTestDatabase(): Promise<{
  database: Database
  url: string | undefined
  drop: () => Promise<void>
}> {
  const url = process.env.TEST_DATABASE_URL
  if (url) {
    const name = `${inject('postgresRunPrefix')}${randomBytes(6).toString('hex')}`
    const admin = new pg.Client({ connectionString: url })
    await admin.connect()
    await admin.query(`create database ${name} template ${inject('postgresTemplate')}`)
    const target = new URL(url)
    target.pathname = `/${name}`
    const database = openPostgres(target.toString(), { max: 5 })
    return {
      database,
      url: target.toString(),
      drop: async () => {
        await database.close()
        await admin.query(`drop database if exists ${name} with (force)`)
        await admin.end()
      },
    }
  }
  const blob = new Blob([fs.readFileSync(inject('pgliteTemplate'))])
  const database = await openPglite({ loadDataDir: blob })
  return { database, url: undefined, drop: () => database.close() }
}

/** Registers before/after hooks giving the file its own database; read `.current` inside tests. */
export function useTestDatabase(): { readonly current: Database; readonly url: string | undefined } {
  let handle: Awaited<ReturnType<typeof createTestDatabase>> | undefined
  beforeAll(async () => {
    handle = await createTestDatabase()
  })
  afterAll(async () => {
    await handle?.drop()
  })
  return {
    get current() {
      if (!handle) throw new Error('test database used outside a test')
      return handle.database
    },
    get url() {
      return handle?.url
    },
  }
}
