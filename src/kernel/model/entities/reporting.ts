import { sql } from 'drizzle-orm'
import * as t from '../../db/schema/index.ts'
import { textArray } from '../json.ts'
import { defineEntity, manyToOne, oneToMany } from '../registry.ts'

export const reportingEntities = [
  defineEntity({
    name: 'ReportQuery',
    platform: true,
    package: 'report',
    table: t.reportQueries,
    resource: 'finance.reporting',
    fields: {
      visibility: { enum: ['PUBLIC', 'PROTECTED', 'PRIVATE'] },
      queryType: { enum: ['VISUAL', 'HQL', 'NATIVE_SQL'], readOnly: true },
      system: { readOnly: true },
      ownerGroups: { readOnly: true },
    },
    relations: { executions: oneToMany('ReportQueryExecution', 'reportQuery') },
    // The visibility of saved queries (report-query.model.ts `isVisible`), also through the Query API.
    rowPolicy: (q, viewer) =>
      viewer.roles.has('queryManagement')
        ? undefined
        : sql`(${q}.system or ${q}.visibility = 'PUBLIC' or ${q}.creator = ${viewer.username}
            or (${q}.visibility = 'PROTECTED' and ${q}.owner_groups && ${textArray(viewer.groups)}))`,
  }),
  defineEntity({
    name: 'ReportQueryExecution',
    platform: true,
    package: 'report',
    table: t.reportQueryExecutions,
    resource: 'finance.reporting',
    relations: { reportQuery: manyToOne('ReportQuery', 'reportQueryId') },
    // Each caller reads their own executions; queryManagement reads everyone's.
    rowPolicy: (e, viewer) =>
      viewer.roles.has('queryManagement') ? undefined : sql`${e}.executed_by = ${viewer.username}`,
  }),
]
