import { sql } from 'drizzle-orm'
import { rows, type Db } from '../../kernel/db/database.ts'
import { registry, type EntityDef } from '../../kernel/model/index.ts'
import { buildQuery, requestFromLegacyBody, type CustomFieldTemplate, type QueryEngine } from '../query/index.ts'
import type { QueryRunner } from './report-query.service.ts'

async function templatesByEntity(db: Db): Promise<Map<string, Map<string, CustomFieldTemplate>>> {
  const templates = await rows<CustomFieldTemplate>(
    db,
    sql`select code, applies_to as "appliesTo", field_type as "fieldType", storage_type as "storageType" from custom_field_template`,
  )
  const byEntity = new Map<string, Map<string, CustomFieldTemplate>>()
  for (const t of templates)
    byEntity.set(t.appliesTo, (byEntity.get(t.appliesTo) ?? new Map<string, CustomFieldTemplate>()).set(t.code, t))
  return byEntity
}

/** Saved queries compile and run through the Query API's own parser, AST and engine. */
export function queryApiRunner(engine: QueryEngine, db: Db): QueryRunner {
  return {
    async validate(entityToken, advancedQuery) {
      const entity = registry.get(entityToken)
      const request = requestFromLegacyBody(advancedQuery)
      const templates = await templatesByEntity(db)
      // SQL keys are accepted at write time; whoever executes the query needs queryExpert for them.
      buildQuery(entity, request, {
        registry,
        allowSql: true,
        customFields: (e: EntityDef) => templates.get(e.name) ?? new Map<string, CustomFieldTemplate>(),
        defaultLimit: 100,
      })
    },
    async run(principal, entityToken, advancedQuery, limit) {
      const request = { ...requestFromLegacyBody(advancedQuery), limit, offset: 0 }
      return (await engine.runList(principal, entityToken, request)).data
    },
  }
}
