-- The role Expert SQL runs as: it can log in nowhere and, once the migrator has granted it, read only the billing
-- data (the queryable tables that are not the platform's own records: no users, groups, clients, jobs, saved reports,
-- workbench audit or runs, tenant settings) and nothing of the secrets schema. Expert text is the user's own SQL and
-- bypasses the Query API's per-entity permissions and row policies, so the query layer's role (obol_query, which the
-- Query API needs for those records) is too wide for it. Like obol_query it is created once per PostgreSQL cluster,
-- so a streaming replica has it too; the application's role becomes a member so it can switch to it.
DO $$
BEGIN
  CREATE ROLE obol_expert NOLOGIN;
EXCEPTION WHEN duplicate_object OR unique_violation THEN
  NULL;
END
$$;
--> statement-breakpoint
DO $$
BEGIN
  IF NOT pg_has_role(current_user, 'obol_expert', 'MEMBER') THEN
    EXECUTE format('GRANT obol_expert TO %I', current_user);
  END IF;
END
$$;
