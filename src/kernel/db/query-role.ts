/**
 * The PostgreSQL role the query layer's statements run as (created by migration 0008). It has SELECT on the tables
 * of the entities the registry exposes to the Query API and nothing else: not the secrets schema, not the job
 * queue, not the bookkeeping tables. So a query text that slipped past validation still cannot read a secret.
 */
export const QUERY_ROLE = 'obol_query'

/**
 * The role Expert SQL runs as (created by migration 0016): SELECT on the billing data only — the queryable tables
 * less the platform's own records (users, access, jobs, saved reports, the workbench's audit and runs, settings),
 * which the Query API guards per entity and per row but a user's own SQL would read whole.
 */
export const EXPERT_ROLE = 'obol_expert'
