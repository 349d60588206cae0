/**
 * The role catalog: exactly 73 roles named `<domain>.<resource>.<scope>`, plus the
 * three query roles. No hierarchy: `manage` never implies `view`.
 */
const CATALOG: Record<string, Record<string, readonly string[]>> = {
  api: {
    users: ['view', 'manage'],
    roles: ['view', 'manage'],
    groups: ['view', 'manage'],
    security: ['view', 'manage'],
    settings: ['view', 'manage'],
    jobs: ['view', 'run', 'manage'],
    scripts: ['view', 'run', 'manage'],
    audit: ['view'],
  },
  accounts: Object.fromEntries(
    ['customers', 'customerAccounts', 'billingAccounts', 'userAccounts', 'subscriptions'].map((r) => [
      r,
      ['view', 'manage'],
    ]),
  ),
  catalog: Object.fromEntries(
    ['offers', 'products', 'services', 'charges', 'pricePlans', 'discounts'].map((r) => [r, ['view', 'manage']]),
  ),
  ordering: Object.fromEntries(['quotes', 'orders', 'cpq', 'contracts'].map((r) => [r, ['view', 'manage']])),
  billing: Object.fromEntries(
    ['invoices', 'billingRuns', 'creditNotes', 'wallets', 'rating', 'mediation'].map((r) => [r, ['view', 'manage']]),
  ),
  finance: Object.fromEntries(
    ['payments', 'refunds', 'dunning', 'accountReceivables', 'paymentMethods', 'accounting', 'reporting'].map((r) => [
      r,
      ['view', 'manage'],
    ]),
  ),
}

export interface RoleDefinition {
  name: string
  domain: string | null
  resource: string | null
  scope: string | null
  description: string
}

const SCOPE_TEXT: Record<string, string> = {
  view: 'list and read',
  manage: 'create, update and delete',
  run: 'trigger jobs or scripts',
}

/** The 73 billing roles. */
export const BILLING_ROLES: readonly RoleDefinition[] = Object.entries(CATALOG).flatMap(([domain, resources]) =>
  Object.entries(resources).flatMap(([resource, scopes]) =>
    scopes.map((scope) => ({
      name: `${domain}.${resource}.${scope}`,
      domain,
      resource,
      scope,
      description: `${SCOPE_TEXT[scope] ?? scope} ${resource}${resource === 'roles' && scope === 'manage' ? ' (reserved for future use)' : ''}`,
    })),
  ),
)

export const QUERY_ROLES: readonly RoleDefinition[] = [
  {
    name: 'queryUser',
    domain: null,
    resource: null,
    scope: null,
    description: 'run the Query API, saved report queries and Deep mode',
  },
  {
    name: 'queryExpert',
    domain: null,
    resource: null,
    scope: null,
    description: 'Expert mode (native SQL) and SQL filter keys',
  },
  {
    name: 'queryManagement',
    domain: null,
    resource: null,
    scope: null,
    description: 'manage system and other users’ saved queries',
  },
]

export const ALL_ROLES: readonly RoleDefinition[] = [...BILLING_ROLES, ...QUERY_ROLES]

/** Portal roles of the separate portal client: kept apart, never in the billing catalog. */
export const PORTAL_ROLES = ['connect:org-admin', 'connect:user-manager', 'connect:viewer'] as const

const names = (predicate: (r: RoleDefinition) => boolean) => BILLING_ROLES.filter(predicate).map((r) => r.name)
const is = (domain: string, scope?: string) => (r: RoleDefinition) =>
  r.domain === domain && (scope === undefined || r.scope === scope)

const apiViews = names(is('api', 'view'))

/** The six built-in groups; their names and roles are fixed here and written to the database at every start. */
export const BUILT_IN_GROUPS: readonly { name: string; description: string; roles: readonly string[] }[] = [
  { name: 'Platform Admin', description: 'Every role of the catalog', roles: BILLING_ROLES.map((r) => r.name) },
  {
    name: 'Account Manager',
    description: 'Accounts and ordering; reads the catalog',
    roles: [
      ...apiViews,
      ...names(is('accounts')),
      ...names(is('catalog', 'view')),
      ...names(is('ordering')),
      'billing.invoices.view',
      'billing.billingRuns.view',
      'finance.payments.view',
    ],
  },
  {
    name: 'Billing Manager',
    description: 'Billing runs, invoices, wallets, rating and mediation',
    roles: [
      ...apiViews,
      ...names(is('accounts', 'view')),
      'accounts.billingAccounts.manage',
      ...names(is('billing')),
      'finance.payments.view',
      'finance.accountReceivables.view',
    ],
  },
  {
    name: 'Catalog Manager',
    description: 'Offers, products, services, charges, price plans and discounts',
    roles: [...apiViews, ...names(is('catalog')), ...names(is('ordering', 'view'))],
  },
  {
    name: 'Finance Manager',
    description: 'Payments, refunds, dunning, receivables, accounting and reporting',
    roles: [
      ...apiViews,
      'accounts.billingAccounts.view',
      'accounts.customerAccounts.view',
      'billing.invoices.view',
      ...names(is('finance')),
    ],
  },
  { name: 'Viewer', description: 'Every view role, no manage or run role', roles: names((r) => r.scope === 'view') },
]
