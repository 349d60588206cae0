import type { StoredReportQuery } from './report-query.model.ts'

type SystemQuery = Pick<StoredReportQuery, 'code' | 'description' | 'targetEntity' | 'advancedQuery' | 'tags'>

/** The platform's system queries: defined in code, written at start, read-only for everyone. */
export const SYSTEM_QUERIES: readonly SystemQuery[] = [
  {
    code: 'SYS_BILLING_ACCOUNTS_BY_COUNTRY',
    description: 'Number of billing accounts per country',
    targetEntity: 'BillingAccount',
    tags: ['accounts', 'system'],
    advancedQuery: { genericFields: ['country.code', 'COUNT(id)'], groupBy: ['country.code'], sortBy: 'country.code' },
  },
  {
    code: 'SYS_CUSTOMERS_BY_SELLER',
    description: 'Number of customers per seller',
    targetEntity: 'Customer',
    tags: ['accounts', 'system'],
    advancedQuery: { genericFields: ['seller.code', 'COUNT(id)'], groupBy: ['seller.code'], sortBy: 'seller.code' },
  },
  {
    code: 'SYS_FAILED_JOB_EXECUTIONS',
    description: 'Job executions that failed, newest first',
    targetEntity: 'JobExecution',
    tags: ['jobs', 'system'],
    advancedQuery: {
      filters: { status: 'FAILED' },
      genericFields: ['status', 'trigger', 'startedAt', 'endedAt', 'error', 'jobInstance.code'],
      sortBy: 'id',
      sortOrder: 'DESC',
    },
  },
]
