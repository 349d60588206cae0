import type { Database } from '../../kernel/db/database.ts'
import type { ExpertExport } from './expert-export.ts'
import { pgliteExpertExport } from './expert-export.pglite.ts'
import { serverExpertExport } from './expert-export.postgres.ts'

/** The Expert export of a database, by its driver. */
export function expertExportOf(database: Database): ExpertExport {
  if (database.pglite) return pgliteExpertExport(database.pglite)
  if (!database.readServers) throw new Error('a server database without read servers')
  return serverExpertExport(database.db, database.readServers)
}
