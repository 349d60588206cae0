-- Expert runs read a replica that has replayed their submitter's last write: the run keeps the submitter's token
-- subject (the key of obol_read_position). Null for scheduled runs and for runs recorded before this migration.
ALTER TABLE query_execution ADD COLUMN IF NOT EXISTS reader_subject text;
