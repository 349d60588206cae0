import type { PGlite } from '@electric-sql/pglite'
import { EXPERT_ROLE } from '../../kernel/db/query-role.ts'
import { exclusively, exportThroughCursor, simpleQuery, writePlan } from './csv-export.ts'
import type { ExpertExport } from './expert-export.ts'

/** Expert exports on the embedded database: a SELECT through a cursor read in batches, an EXPLAIN's plan at once. */
export function pgliteExpertExport(pglite: PGlite): ExpertExport {
  return {
    exportCsv: async (statement, file) => {
      if (statement.kind === 'select') return exportThroughCursor(pglite, statement, file)
      // A simple-query message of three statements runs as one implicit transaction: read-only, as the Expert role.
      const messages = await exclusively(pglite, () =>
        pglite.execProtocolStream(
          simpleQuery(`SET TRANSACTION READ ONLY; SET LOCAL ROLE ${EXPERT_ROLE}; ${statement.text}`),
        ),
      )
      const plan = messages.flatMap((m) =>
        m.name === 'dataRow' ? [(m as unknown as { fields: (string | null)[] }).fields] : [],
      )
      await writePlan(file, statement.maxBytes, plan)
      return plan.length
    },
    // PGlite runs one statement at a time in this process: nothing to interrupt.
    cancel: async () => false,
    capacity: 1,
  }
}
