-- The catalog's generation (issue 18): a counter raised by the commit of every transaction that changed what order
-- rating reads of the catalog (offers, products and their versions, charges, pricing versions, discount plans, tax
-- mappings and the reference rows they join). Each instance keeps those rows in memory tagged with the generation it
-- read before loading them, and reads the counter once per request: a change committed anywhere is seen by the very
-- next request on every instance. The triggers are deferred to the commit, so the counter's row lock is held only
-- while the transaction commits (catalog writes do not queue behind each other for their whole length).
CREATE TABLE "obol_catalog_generation" (
  "id" integer PRIMARY KEY CHECK ("id" = 1),
  "generation" bigint NOT NULL
)
--> statement-breakpoint
INSERT INTO "obol_catalog_generation" ("id", "generation") VALUES (1, 0)
--> statement-breakpoint
-- Raises the generation once per transaction, however many rows it changed.
CREATE OR REPLACE FUNCTION obol_catalog_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('obol.catalog_changed', true) IS DISTINCT FROM txid_current()::text THEN
    PERFORM set_config('obol.catalog_changed', txid_current()::text, true);
    UPDATE obol_catalog_generation SET generation = generation + 1 WHERE id = 1;
  END IF;
  RETURN NULL;
END $$
--> statement-breakpoint
DO $$
DECLARE
  t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['offer_template', 'offer_component', 'offer_service_template', 'offer_seller',
    'offer_discount_plan', 'service_template', 'service_charge_template', 'product', 'product_version',
    'product_version_attribute', 'product_version_charge', 'product_discount_plan', 'attribute', 'charge_template',
    'calendar', 'pricing_version', 'pricing_matrix_column', 'pricing_matrix_row', 'trading_currency',
    'discount_plan_item', 'accounting_article', 'tax', 'tax_class', 'tax_mapping']
  LOOP
    EXECUTE format('CREATE CONSTRAINT TRIGGER obol_catalog_changed AFTER INSERT OR UPDATE OR DELETE ON %I
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION obol_catalog_changed()', t);
    EXECUTE format('CREATE TRIGGER obol_catalog_truncated AFTER TRUNCATE ON %I
      FOR EACH STATEMENT EXECUTE FUNCTION obol_catalog_changed()', t);
  END LOOP;
END $$
--> statement-breakpoint
-- A placement counts each plan's use (used_quantity, updated): that changes nothing rating reads, so only a change of
-- the plan's definition or status raises the generation (the first use moves a plan to IN_USE: once).
CREATE CONSTRAINT TRIGGER obol_catalog_changed AFTER INSERT OR DELETE ON "discount_plan"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION obol_catalog_changed()
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER obol_catalog_plan_changed AFTER UPDATE ON "discount_plan"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
  WHEN ((OLD.code, OLD.description, OLD.discount_plan_type, OLD.status, OLD.initial_quantity, OLD.application_limit,
    OLD.automatic_application, OLD.sequence) IS DISTINCT FROM (NEW.code, NEW.description, NEW.discount_plan_type,
    NEW.status, NEW.initial_quantity, NEW.application_limit, NEW.automatic_application, NEW.sequence))
  EXECUTE FUNCTION obol_catalog_changed()
--> statement-breakpoint
CREATE TRIGGER obol_catalog_truncated AFTER TRUNCATE ON "discount_plan"
  FOR EACH STATEMENT EXECUTE FUNCTION obol_catalog_changed()
