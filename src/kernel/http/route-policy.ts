import type {} from '@fastify/swagger'
import type { FastifyInstance, RouteOptions } from 'fastify'

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The role a caller needs (`<domain>.<resource>.<scope>`), or `public` for the few routes that need no
     * token (health, metrics, docs, token endpoint). Every route declares one; `policyTable()` lists them.
     */
    policy?: RoutePolicy
  }
}

export type RoutePolicy =
  | { role: string }
  | { public: true }
  | { anyRole: readonly string[] }
  /** Query layer: the view role of the entity named in the path, or queryUser (checked in the handler). */
  | { entityView: true }
  /** Portal routes: a session cookie (plus the CSRF header on writes) instead of a bearer token. */
  | { session: true }
  /** Any valid token, whatever its roles (the caller's own session). */
  | { authenticated: true }

export interface PolicyEntry {
  method: string
  url: string
  policy: RoutePolicy | undefined
}

export function describePolicy(policy: RoutePolicy | undefined): string {
  if (!policy) return 'no policy declared'
  if ('public' in policy) return 'Public: no token needed.'
  if ('role' in policy) return `Required role: \`${policy.role}\`.`
  if ('entityView' in policy)
    return 'Required role: the view role of the entity’s resource (for example `accounts.billingAccounts.view`), or `queryUser`.'
  if ('session' in policy) return 'Portal route: authenticated by the session cookie; writes need the CSRF header.'
  if ('authenticated' in policy) return 'Required role: none; any valid bearer token.'
  return `Required role: any of ${policy.anyRole.map((r) => `\`${r}\``).join(', ')}.`
}

/**
 * Collects every route's policy into one table and writes the role into the OpenAPI description. The access module
 * enforces the table.
 */
export function installRoutePolicy(app: FastifyInstance): PolicyEntry[] {
  const table: PolicyEntry[] = []
  app.addHook('onRoute', (route: RouteOptions) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method]
    // The web UI's files (registered by @fastify/static, which takes no route config) are public: the pages call the
    // API with a token of their own.
    if (route.url === '/ui' || route.url.startsWith('/ui/'))
      route.config = { ...route.config, policy: { public: true } }
    // The documentation UI's own routes (assets) are public like the document they show.
    const policy = route.url.startsWith('/api/docs') ? { public: true as const } : route.config?.policy
    for (const method of methods) {
      if (method === 'HEAD') continue
      table.push({ method, url: route.url, policy })
    }
    // A GET's automatic HEAD route shares the GET's schema object: writing the role for it too would say it twice.
    if (route.schema && !route.schema.hide && methods.some((method) => method !== 'HEAD')) {
      const roleLine = describePolicy(policy)
      const existing = typeof route.schema.description === 'string' ? route.schema.description : ''
      route.schema.description = existing ? `${existing}\n\n${roleLine}` : roleLine
    }
  })
  return table
}
