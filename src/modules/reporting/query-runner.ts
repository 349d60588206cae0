import type { QueryEngine } from '../query/index.ts'
import { requestFromLegacyBody } from '../query/index.ts'
import type { QueryRunner } from './report-query.service.ts'

/** Saved queries compile and run through the Query API's own parser, AST and engine. */
export function queryApiRunner(engine: QueryEngine): QueryRunner {
  return {
    async validate(principal, entityToken, advancedQuery) {
      await engine.validate(principal, entityToken, requestFromLegacyBody(advancedQuery))
    },
    async run(principal, entityToken, advancedQuery, limit) {
      const request = { ...requestFromLegacyBody(advancedQuery), limit, offset: 0 }
      return (await engine.runList(principal, entityToken, request)).data
    },
  }
}
