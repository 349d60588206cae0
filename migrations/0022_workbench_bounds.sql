-- The byte cap of one Expert export file, in MiB (workbench.governor.maxExportMegabytes): a run past it ends FAILED
-- and keeps no file.
ALTER TABLE "tenant_setting" ADD COLUMN IF NOT EXISTS "governor_max_export_megabytes" integer DEFAULT 100 NOT NULL;
--> statement-breakpoint
-- Expert run records name their file relative to the export root (exports/queryStudio/<user>/<date>/expert-<id>.csv),
-- never as a server path: records written before kept the absolute path.
UPDATE "query_execution" SET "file_path" = regexp_replace("file_path", '^.*/(exports/queryStudio/[^/]+/[^/]+/[^/]+)$', '\1')
WHERE "file_path" LIKE '/%';
--> statement-breakpoint
-- A schedule belongs to its saved query. Schedules whose query is gone, or was saved again under the same code after
-- the schedule was made (someone else's query inheriting it), are removed; the others name their query's id, which a
-- firing checks.
DELETE FROM "job_instance" j
WHERE j."job_type" = 'ExpertScheduledQueryJob' AND NOT EXISTS (
  SELECT 1 FROM "report_query" q
  WHERE j."code" = 'ExpertQuery:' || q."code" AND q."code" = j."parameters"->>'queryCode'
    AND q."query_type" = 'NATIVE_SQL' AND q."created" <= j."created");
--> statement-breakpoint
UPDATE "job_instance" j SET "parameters" = j."parameters" || jsonb_build_object('queryId', q."id")
FROM "report_query" q
WHERE j."job_type" = 'ExpertScheduledQueryJob' AND q."code" = j."parameters"->>'queryCode';
