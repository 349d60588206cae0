-- The role every read of the query layer runs as (Query API, saved reports, Deep, raw SQL filters, Expert SQL):
-- it can log in nowhere and, once the migrator has granted it, read only the tables the registry exposes. It is
-- created once per PostgreSQL cluster (roles are cluster-wide); the application's own role becomes a member so it
-- can switch to it with SET ROLE. A migrating role without CREATEROLE needs an administrator to run these two
-- statements beforehand (the README's production section says how).
DO $$
BEGIN
  CREATE ROLE obol_query NOLOGIN;
EXCEPTION WHEN duplicate_object OR unique_violation THEN
  NULL;
END
$$;
--> statement-breakpoint
DO $$
BEGIN
  IF NOT pg_has_role(current_user, 'obol_query', 'MEMBER') THEN
    EXECUTE format('GRANT obol_query TO %I', current_user);
  END IF;
END
$$;
