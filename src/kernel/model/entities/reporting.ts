import * as t from '../../db/schema/index.ts'
import { defineEntity, manyToOne, oneToMany } from '../registry.ts'

export const reportingEntities = [
  defineEntity({
    name: 'ReportQuery',
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
  }),
  defineEntity({
    name: 'ReportQueryExecution',
    package: 'report',
    table: t.reportQueryExecutions,
    resource: 'finance.reporting',
    relations: { reportQuery: manyToOne('ReportQuery', 'reportQueryId') },
  }),
]
