ALTER TABLE "wallet_operation" ADD COLUMN "unit_amount_with_tax" numeric;
