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
  {
    code: 'SYS_OPEN_WALLET_OPERATIONS_BY_BILLING_ACCOUNT',
    description: 'Open wallet operations (rated, not yet invoiced) per billing account: amount with tax',
    targetEntity: 'WalletOperation',
    tags: ['rating', 'system'],
    advancedQuery: {
      filters: { status: 'OPEN' },
      genericFields: ['billingAccount.code', 'SUM(amountWithTax)', 'COUNT(id)'],
      groupBy: ['billingAccount.code'],
      sortBy: 'billingAccount.code',
    },
  },
  {
    code: 'SYS_SUBSCRIPTIONS_BY_OFFER',
    description: 'Number of subscriptions per offer and status',
    targetEntity: 'Subscription',
    tags: ['ordering', 'system'],
    advancedQuery: {
      genericFields: ['offer.code', 'status', 'COUNT(id)'],
      groupBy: ['offer.code', 'status'],
      sortBy: 'offer.code',
    },
  },
  {
    code: 'SYS_DISCOUNT_PLAN_USAGE',
    description: 'Discount plans used by orders: status, uses and the uses allowed (0: no limit)',
    targetEntity: 'DiscountPlan',
    tags: ['catalog', 'system'],
    advancedQuery: {
      filters: { 'inList status': ['IN_USE', 'EXPIRED'] },
      genericFields: ['code', 'status', 'usedQuantity', 'initialQuantity'],
      sortBy: 'code',
    },
  },
]
