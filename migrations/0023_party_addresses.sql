-- Invoice documents (invoicing-events.md §1, issue 39): what an EU invoice prints of its parties. Sellers carry their
-- postal address and VAT number; customers (the legal entities billed) their VAT number; billing accounts the address
-- their invoices go to. The country of an address is the record's existing `country`.
ALTER TABLE "seller" ADD COLUMN "address_1" text;
--> statement-breakpoint
ALTER TABLE "seller" ADD COLUMN "address_2" text;
--> statement-breakpoint
ALTER TABLE "seller" ADD COLUMN "zip_code" text;
--> statement-breakpoint
ALTER TABLE "seller" ADD COLUMN "city" text;
--> statement-breakpoint
ALTER TABLE "seller" ADD COLUMN "vat_no" text;
--> statement-breakpoint
ALTER TABLE "customer" ADD COLUMN "vat_no" text;
--> statement-breakpoint
ALTER TABLE "billing_account" ADD COLUMN "address_1" text;
--> statement-breakpoint
ALTER TABLE "billing_account" ADD COLUMN "address_2" text;
--> statement-breakpoint
ALTER TABLE "billing_account" ADD COLUMN "zip_code" text;
--> statement-breakpoint
ALTER TABLE "billing_account" ADD COLUMN "city" text;
