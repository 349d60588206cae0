-- A PREPAID wallet's low-balance level: `wallet.balance_low` is reported when its available amount
-- (balance − reserved) falls from at or above the level to below it. None: never.
ALTER TABLE "wallet" ADD COLUMN "low_balance_level" numeric;
--> statement-breakpoint
ALTER TABLE "wallet" ADD CONSTRAINT "wallet_low_balance_level_not_negative" CHECK ("wallet"."low_balance_level" >= 0);
