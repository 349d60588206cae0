-- The instance holding a delivery's lease: once it stops heartbeating (INSTANCE_STALE_AFTER_MS), its deliveries
-- are claimed again without waiting for the lease to run out.
ALTER TABLE "webhook_delivery" ADD COLUMN "leased_by" text;
