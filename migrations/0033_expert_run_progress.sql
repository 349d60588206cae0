-- An Expert run's progress and its row cap: rows written so far while it runs (rows_so_far), and the row cap its
-- statement was limited to when the limit was the tenant's cap (row_cap; null when the submitter asked for fewer,
-- or for EXPLAIN), so a result that reached it says it may have been cut.
ALTER TABLE "query_execution" ADD COLUMN "rows_so_far" integer;
--> statement-breakpoint
ALTER TABLE "query_execution" ADD COLUMN "row_cap" integer;
