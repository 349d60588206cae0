import type { FastifyInstance } from 'fastify'
import { defaultPageLimit } from '../../kernel/http/pagination.ts'
import type { Db } from '../../kernel/db/database.ts'
import { registry } from '../../kernel/model/index.ts'
import type { TimeZoneListener } from '../../kernel/settings.ts'
import type { Resource } from '../../kernel/resources/resource.model.ts'
import { createResourceService } from '../../kernel/resources/resource.service.ts'
import { registerResourceRoutes, type ActorOf } from '../../kernel/resources/resource.routes.ts'
import { accountResources } from './accounts.resources.ts'
import { registerTenantSettingsRoutes } from './tenant-settings.routes.ts'

export { periodContaining, type Period, type CalendarShape } from './calendar.model.ts'
export {
  billingPartiesColumns,
  billingPartiesJoins,
  billingPartiesOf,
  orderPartiesByCode,
  sellerOfUserAccount,
  userAccountJoins,
  type BillingParties,
  type BillingAccountRow,
  type OrderPartyRows,
  type SellerRow,
  type UserAccountRow,
} from './party-lookup.repository.ts'
export { seedAccountsDemo } from './demo-data.ts'
export {
  currencyOfUserAccount,
  lockUserAccount,
  sellerIdByCode,
  sellerIdOfUserAccount,
  userAccountIdByCode,
} from './account-lookup.repository.ts'
export {
  knownSellerCodes,
  sellerAmong,
  sellerAndUserAccountJoins,
  sellerCodeById,
  sellerCodeOf,
  sellerLeftJoin,
} from './seller-lookup.repository.ts'
/** What invoicing's statements join and read of the account hierarchy (fixed aliases `se`, `ba`, `ca`, `cu`). */
export {
  billingAccountCodeOf,
  billingAccountCountOfCycle,
  billingAccountFromItem,
  billingAccountJoin,
  billingAccountsOfCycle,
  countBillingAccountsOfCycle,
  customerAccountJoin,
  customerOfCustomerAccountJoin,
  sellerAncestryCte,
  sellerByCodeAnyCase,
  sellerJoin,
  visibleBillingAccount,
} from './invoice-parties.repository.ts'
export { taxClassCodes, taxMappingsOf, type TaxMappingRow } from './tax-lookup.repository.ts'

export function toResource(spec: (typeof accountResources)[number]): Resource {
  const def = registry.get(spec.entity)
  const writableFields = [...def.fields.values()].filter((f) => !f.readOnly && f.name !== 'cfValues')
  return { ...spec, def, writableFields }
}

/** Sellers, the account hierarchy and reference data, as plain v1 resources, plus tenant settings. */
export function createAccountsModule(deps: {
  db: Db
  actorOf: ActorOf
  /** Told of a change of the tenant time zone, in its transaction (filled by the modules owning timers). */
  timeZoneListeners?: readonly TimeZoneListener[]
}) {
  const defaultLimit = () => defaultPageLimit(deps.db)
  const services = accountResources.map((spec) =>
    createResourceService({ resource: toResource(spec), db: deps.db, defaultLimit }),
  )
  return {
    services,
    routes: (app: FastifyInstance) => {
      for (const service of services) registerResourceRoutes(app, service, deps.actorOf)
      registerTenantSettingsRoutes(app, deps.db, deps.actorOf, deps.timeZoneListeners)
    },
  }
}
