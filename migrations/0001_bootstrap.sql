-- The tenant's settings row: every setting has its default until an administrator changes it.
INSERT INTO "tenant_setting" ("id") VALUES (1) ON CONFLICT DO NOTHING;
