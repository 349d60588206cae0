import fs from 'node:fs'
import path from 'node:path'
import { sql } from 'drizzle-orm'
import { rows, type Db } from '../../kernel/db/database.ts'
import type { JobType } from '../../kernel/jobs/job-runtime.ts'
import { readTenantSettings } from '../../kernel/settings.ts'

/**
 * Export retention: Expert runs that ended more than the tenant's `workbench.exportRetentionDays` (default 30) ago
 * lose their CSV file and their record. A file already gone (another instance's disk, removed by hand) is no error.
 * Records name their file under the export root of the workbench built on the job's database (`exportDirOf`).
 */
export const exportPurgeJob = (exportDirOf: (db: Db) => string): JobType => ({
  name: 'ExpertExportPurgeJob',
  description: 'Deletes Expert CSV exports and their records older than the tenant export retention (default 30 days)',
  defaultInstance: {
    code: 'ExpertExportPurge',
    description: 'Purge Expert exports every day at 03:30',
    timer: { second: '0', minute: '30', hour: '3' },
  },
  async run(context) {
    const { workbenchExportRetentionDays: days } = await readTenantSettings(context.db)
    const exportDir = exportDirOf(context.db)
    const deleted = await rows<{ filePath: string | null }>(
      context.db,
      sql`delete from query_execution where end_date < now() - make_interval(days => ${days})
        returning file_path as "filePath"`,
    )
    let failed = 0
    for (const { filePath } of deleted) {
      if (filePath === null) continue
      await fs.promises.rm(path.resolve(exportDir, filePath), { force: true }).catch((error: unknown) => {
        failed++
        context.log.warn({ err: error, file: filePath }, 'an expired Expert export could not be deleted')
      })
    }
    return { processed: deleted.length, failed }
  },
})
