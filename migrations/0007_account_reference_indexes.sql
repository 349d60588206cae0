CREATE INDEX "billing_account_country_id_idx" ON "billing_account" USING btree ("country_id");--> statement-breakpoint
CREATE INDEX "billing_account_language_id_idx" ON "billing_account" USING btree ("language_id");--> statement-breakpoint
CREATE INDEX "billing_account_trading_currency_id_idx" ON "billing_account" USING btree ("trading_currency_id");--> statement-breakpoint
CREATE INDEX "customer_account_trading_currency_id_idx" ON "customer_account" USING btree ("trading_currency_id");--> statement-breakpoint
CREATE INDEX "customer_account_language_id_idx" ON "customer_account" USING btree ("language_id");