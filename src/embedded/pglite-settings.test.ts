import fs from 'node:fs'
import { describe, expect, inject, it } from 'vitest'
import { onPostgres } from '../../test/support/test-database.ts'
import { openPglite } from '../kernel/db/database.ts'

/** What `show` answers on an embedded database opened from the suite's migrated template. */
async function settingsOf(sharedBuffersMb?: number): Promise<Record<string, string>> {
  const blob = new Blob([fs.readFileSync(inject('pgliteTemplate'))])
  const database = await openPglite({ loadDataDir: blob, ...(sharedBuffersMb ? { sharedBuffersMb } : {}) })
  try {
    const found: Record<string, string> = {}
    for (const name of ['shared_buffers', 'max_connections', 'max_wal_senders']) {
      const result = await database.pglite!.query<Record<string, string>>(`show ${name}`)
      found[name] = result.rows[0]![name]!
    }
    return found
  } finally {
    await database.close()
  }
}

// The suite's PGlite template exists when it runs on PGlite (on a server, the settings are the server's own).
describe.skipIf(onPostgres)('embedded PostgreSQL settings (PGlite only)', () => {
  it('opens with 4 MB of shared buffers, 8 connection slots and no WAL senders by default', async () => {
    expect(await settingsOf()).toEqual({ shared_buffers: '4MB', max_connections: '8', max_wal_senders: '0' })
  })

  it('opens with the shared buffers it is given (PGLITE_SHARED_BUFFERS_MB)', async () => {
    expect((await settingsOf(24)).shared_buffers).toBe('24MB')
  })
})
