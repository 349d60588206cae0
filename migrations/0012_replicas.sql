-- Read-your-writes on streaming replicas (DECISIONS "Read replicas"): each caller's last write position in the
-- primary's WAL, shared by every instance. A read of that caller goes to a replica only when the replica has
-- replayed past it. Bookkeeping, not an entity: the query role cannot read it.
CREATE TABLE "obol_read_position" (
	"subject" text PRIMARY KEY NOT NULL,
	"lsn" pg_lsn NOT NULL,
	"written_at" timestamp with time zone DEFAULT now() NOT NULL
);
