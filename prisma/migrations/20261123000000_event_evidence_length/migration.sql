-- AlterTable: the evidence "schema_too_expensive" (a registered schema that could not check the arguments within its
-- time budget) needs 20 characters. Widening a VARCHAR rewrites no rows.
ALTER TABLE "events" ALTER COLUMN "evidence" SET DATA TYPE VARCHAR(32);
