-- fullTextFilter of the Opencell generic API (§ "Coming from Opencell"): trigram indexes on the free-text fields of
-- the huge entities, matching the compiled `lower(column) like lower(pattern)`. test/e2e/opencell-clients.test.ts
-- checks that every huge entity's full-text field has one.
CREATE EXTENSION IF NOT EXISTS pg_trgm;--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "wallet_operation_code_trgm_idx" ON "wallet_operation" USING gin (lower("code") gin_trgm_ops);--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "wallet_operation_description_trgm_idx" ON "wallet_operation" USING gin (lower("description") gin_trgm_ops);--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "wallet_operation_explanation_trgm_idx" ON "wallet_operation" USING gin (lower("explanation") gin_trgm_ops);--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "query_audit_username_trgm_idx" ON "query_audit" USING gin (lower("username") gin_trgm_ops);--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "query_audit_query_hash_trgm_idx" ON "query_audit" USING gin (lower("query_hash") gin_trgm_ops);--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "query_audit_query_text_trgm_idx" ON "query_audit" USING gin (lower("query_text") gin_trgm_ops);--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "query_audit_error_message_trgm_idx" ON "query_audit" USING gin (lower("error_message") gin_trgm_ops);
