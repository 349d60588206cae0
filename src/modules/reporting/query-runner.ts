import type { QueryEngine } from '../query/index.ts'
import { requestFromLegacyBody } from '../query/index.ts'
import type { QueryRunner } from './report-query.service.ts'

/** Deep (HQL) queries as saved report queries need them: checked on save, run on execution. */
export interface HqlRunner {
  checkHql(text: string): string
  runHql: QueryRunner['runHql']
}

/** Saved queries compile and run through the Query API's own parser, AST and engine (HQL through Deep mode). */
export function queryApiRunner(engine: QueryEngine, hql: HqlRunner): QueryRunner {
  return {
    checkHql: (text) => hql.checkHql(text),
    runHql: (principal, text, limit) => hql.runHql(principal, text, limit),
    async validate(principal, entityToken, advancedQuery) {
      await engine.validate(principal, entityToken, requestFromLegacyBody(advancedQuery))
    },
    async run(principal, entityToken, advancedQuery, limit) {
      const request = { ...requestFromLegacyBody(advancedQuery), limit, offset: 0 }
      return (await engine.runList(principal, entityToken, request)).data
    },
  }
}
