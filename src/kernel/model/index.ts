import { EntityRegistry } from './registry.ts'
import { referenceEntities } from './entities/reference.ts'
import { accountEntities } from './entities/accounts.ts'
import { jobEntities } from './entities/jobs.ts'
import { iamEntities } from './entities/iam.ts'
import { catalogEntities } from './entities/catalog.ts'
import { billingRunEntities } from './entities/billing-runs.ts'
import { reportingEntities } from './entities/reporting.ts'
import { orderingEntities } from './entities/ordering.ts'
import { workbenchEntities } from './entities/workbench.ts'
import { prepaidEntities } from './entities/prepaid.ts'
import { invoicingEntities } from './entities/invoicing.ts'
import { eventEntities } from './entities/events.ts'

export * from './registry.ts'

/** Every entity of the platform. A module adds its entities here, and the query layer reads them at once. */
export const registry = new EntityRegistry([
  ...referenceEntities,
  ...accountEntities,
  ...jobEntities,
  ...iamEntities,
  ...billingRunEntities,
  ...catalogEntities,
  ...reportingEntities,
  ...orderingEntities,
  ...workbenchEntities,
  ...prepaidEntities,
  ...invoicingEntities,
  ...eventEntities,
])
