import { sql } from 'drizzle-orm'
import * as t from '../../db/schema/index.ts'
import { defineEntity } from '../registry.ts'

export const workbenchEntities = [
  defineEntity({
    name: 'QueryAudit',
    platform: true,
    package: 'report',
    table: t.queryAudits,
    resource: 'api.audit',
    huge: true,
    fields: {
      mode: { enum: ['DEEP', 'EXPERT', 'REPORT'] },
      status: { enum: ['SUBMITTED', 'SUCCESS', 'FAILED', 'REFUSED', 'TIMEOUT', 'CANCELLED'] },
    },
    // Audit readers (api.audit.view) and query managers read every entry; other query users their own.
    rowPolicy: (a, viewer) =>
      viewer.roles.has('api.audit.view') || viewer.roles.has('queryManagement')
        ? undefined
        : sql`${a}.username = ${viewer.username}`,
  }),
  // Expert runs: their owner's, and everyone's for query managers.
  defineEntity({
    name: 'QueryExecution',
    platform: true,
    package: 'report',
    table: t.queryExecutions,
    resource: 'api.audit',
    fields: {
      status: { enum: ['SUCCESS', 'FAILED', 'TIMEOUT', 'CANCELLED'] },
    },
    rowPolicy: (a, viewer) =>
      viewer.roles.has('queryManagement') ? undefined : sql`${a}.username = ${viewer.username}`,
  }),
  // The governor's per-minute counts: bookkeeping, not data.
  defineEntity({
    name: 'WorkbenchUsage',
    platform: true,
    package: 'report',
    table: t.workbenchUsage,
    resource: 'api.audit',
    queryable: false,
  }),
]
