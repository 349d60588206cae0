-- Prepaid usage reservations hold the discount plan applications and FIXED amounts their rating took (per discount
-- plan instance id: lines discounted per subscription, amounts granted per item), given back on cancel, expiry or
-- confirm, as counter units are: two reservations cannot both count on a plan's last application.
ALTER TABLE "reservation" ADD COLUMN IF NOT EXISTS "discount_taken" jsonb DEFAULT '{}'::jsonb NOT NULL;
