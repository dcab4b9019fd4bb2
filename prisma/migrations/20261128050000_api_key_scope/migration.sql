-- What a key may do (docs/mcp-server.md): `write` keys do everything, as every key did before; `read` keys only read
-- (GET routes and the read tools of /mcp), for a coding agent that should look but not apply. Existing keys keep
-- writing.
ALTER TABLE "api_keys" ADD COLUMN "scope" VARCHAR(5) NOT NULL DEFAULT 'write';
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_scope_check" CHECK ("scope" IN ('read', 'write'));
