import type { FastifyInstance } from 'fastify'
import type { Db } from '../../kernel/db/database.ts'
import type { AuthConfig } from '../../kernel/config.ts'
import type { Clock } from '../../kernel/clock.ts'
import { tenantToday } from '../../kernel/settings.ts'
import { createIamService } from './iam.service.ts'
import { SigningKeys } from './signing-keys.ts'
import { createTokenService } from './tokens.ts'
import { AuthThrottle } from './throttle.ts'
import { registerAuthRoutes } from './auth.routes.ts'
import { registerIamRoutes } from './iam.routes.ts'
import { registerPortalRoutes } from './portal.routes.ts'
import { createPortalService } from './portal.service.ts'
import { routeFamily } from '../../kernel/http/error-handler.ts'

export { bootstrapAccess, QUERY_ADMIN_GROUP, type BootstrapResult } from './bootstrap.ts'
export { IAM_COMMAND_HELP, runIamCommand } from './iam.cli.ts'
export { createIamService, type IamService } from './iam.service.ts'
export { SigningKeys } from './signing-keys.ts'
export { createTokenService, currentPrincipal, type TokenService } from './tokens.ts'
export { BILLING_ROLES, QUERY_ROLES, BUILT_IN_GROUPS } from './role-catalog.ts'

/** Identity and access: role catalog, groups, users, clients, the token issuer and the portal session. */
export function createIamModule(deps: { db: Db; config: AuthConfig; baseUrl: string; clock: Clock }) {
  const iam = createIamService({ db: deps.db })
  const keys = new SigningKeys(deps.db, deps.config.tokenTtlSec)
  const tokens = createTokenService({ db: deps.db, keys, config: deps.config, baseUrl: deps.baseUrl })
  const throttle = new AuthThrottle(deps.db, {
    maxFailures: deps.config.maxFailures,
    maxAddressFailures: deps.config.maxAddressFailures,
    windowSec: deps.config.failureWindowSec,
  })
  const portal = createPortalService({ db: deps.db, iam, tokens, throttle, config: deps.config })
  return {
    iam,
    keys,
    tokens,
    async routes(app: FastifyInstance) {
      // The OpenID issuer answers errors as RFC 6749 §5.2 (`error`, `error_description`).
      await routeFamily(app, { family: 'oauth', prefixes: ['/auth/realms'] }, (scope) =>
        registerAuthRoutes(scope, { config: deps.config, tokens, keys, throttle }),
      )
      registerIamRoutes(app, iam, deps.config.realm, () => tenantToday(deps.db, deps.clock))
      registerPortalRoutes(app, {
        portal,
        sessionTtlSec: deps.config.portalSessionTtlSec,
        secureCookies: deps.baseUrl.startsWith('https:'),
      })
    },
  }
}
