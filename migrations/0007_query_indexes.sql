CREATE INDEX "billing_account_country_id_idx" ON "billing_account" USING btree ("country_id");--> statement-breakpoint
CREATE INDEX "billing_account_language_id_idx" ON "billing_account" USING btree ("language_id");--> statement-breakpoint
CREATE INDEX "billing_account_trading_currency_id_idx" ON "billing_account" USING btree ("trading_currency_id");--> statement-breakpoint
CREATE INDEX "billing_account_code_lower_idx" ON "billing_account" USING btree (lower("code"));--> statement-breakpoint
CREATE INDEX "customer_account_trading_currency_id_idx" ON "customer_account" USING btree ("trading_currency_id");--> statement-breakpoint
CREATE INDEX "customer_account_language_id_idx" ON "customer_account" USING btree ("language_id");--> statement-breakpoint
CREATE INDEX "customer_account_code_lower_idx" ON "customer_account" USING btree (lower("code"));--> statement-breakpoint
CREATE INDEX "customer_code_lower_idx" ON "customer" USING btree (lower("code"));--> statement-breakpoint
CREATE INDEX "user_account_code_lower_idx" ON "user_account" USING btree (lower("code"));--> statement-breakpoint
CREATE INDEX "customer_order_code_lower_idx" ON "customer_order" USING btree (lower("code"));--> statement-breakpoint
CREATE INDEX "subscription_code_lower_idx" ON "subscription" USING btree (lower("code"));