import type { Principal } from '../../kernel/http/principal.ts'
import { entityFullName, JAVA_TYPES, type EntityRegistry } from '../../kernel/model/index.ts'
import { authorizedTarget, canRead, requireSomeReadable } from './entity-target.ts'
import { opencellFieldMap, type OpencellFieldMap } from './opencell.model.ts'

export interface EntityListOptions {
  readonly onlyBusinessEntities?: boolean
  readonly onlyHugeEntities?: boolean
  readonly withFullName?: boolean
  /** Leaves out the platform's own records (OauthClient, QueryAudit, TenantSetting…): what a report is written on. */
  readonly withoutPlatformEntities?: boolean
}

export interface FieldMapping {
  readonly javaName: string
  readonly tableName: string
  readonly fields: readonly Record<string, string | boolean>[]
}

/** The entity names the caller may query (readable by its roles), subclasses included. */
export function readableEntities(registry: EntityRegistry, principal: Principal, options: EntityListOptions) {
  requireSomeReadable(registry, principal)
  const found: { name: string; fullName: string }[] = []
  for (const entity of registry.queryable()) {
    if (!canRead(principal, entity)) continue
    if (options.onlyBusinessEntities && !entity.business) continue
    if (options.onlyHugeEntities && !entity.huge) continue
    if (options.withoutPlatformEntities && entity.platform) continue
    found.push({ name: entity.name, fullName: entity.fullName })
    for (const sub of Object.keys(entity.inheritance?.subclasses ?? {})) {
      found.push({ name: sub, fullName: entityFullName(entity.package, sub) })
    }
  }
  found.sort((x, y) => x.name.localeCompare(y.name))
  return { entities: options.withFullName ? found : found.map((e) => e.name) }
}

/** Opencell's description of an entity (generic API v2): readable relations are described `depth` levels down. */
export function opencellFields(
  registry: EntityRegistry,
  principal: Principal,
  entityToken: string,
  options: { depth: number; filter: string | undefined },
): OpencellFieldMap {
  const target = authorizedTarget(registry, principal, entityToken)
  return opencellFieldMap(registry, target.entity, { ...options, readable: (entity) => canRead(principal, entity) })
}

/** How an entity maps to its table, with Java-style names and types so that clients written for Opencell read it. */
export function fieldMapping(registry: EntityRegistry, principal: Principal, entityToken: string): FieldMapping {
  const target = authorizedTarget(registry, principal, entityToken)
  const entity = target.entity
  const fields: Record<string, string | boolean>[] = []
  for (const field of entity.fields.values()) {
    fields.push({
      javaField: field.name,
      javaType: JAVA_TYPES[field.type],
      columnName: field.column,
      ...(field.nullable ? {} : { nullable: false }),
    })
  }
  for (const relation of entity.relations.values()) {
    const related = registry.get(relation.target)
    if (!related.queryable) continue
    if (relation.kind === 'manyToOne') {
      fields.push({
        javaField: relation.name,
        javaType: related.fullName,
        columnName: relation.column!,
        ...(relation.nullable ? {} : { nullable: false }),
        isFK: true,
        isAssociation: true,
      })
    } else fields.push({ javaField: relation.name, javaType: 'java.util.List', isAssociation: true })
  }
  return { javaName: target.fullName, tableName: entity.tableName, fields }
}
