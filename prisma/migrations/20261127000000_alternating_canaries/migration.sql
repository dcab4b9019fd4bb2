-- Canaries for every deployment shape (issue 34, docs/rollout.md): a canary alternates between its version and the
-- previous one for every caller, one nightly look at a time, unless the project asks for a split by sticky id; several
-- warnings of one tool that target different mistakes are tested in one canary version, each judged on its own mistake.
ALTER TABLE "canaries" ADD COLUMN "design" VARCHAR(16) NOT NULL DEFAULT 'alternating';
ALTER TABLE "canaries" ADD CONSTRAINT "canaries_design_check" CHECK ("design" IN ('alternating', 'split'));
-- the nightly looks taken so far: an alternating canary serves its version after an even number of looks
ALTER TABLE "canaries" ADD COLUMN "looks" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE "canaries" ADD COLUMN "max_looks" INTEGER NOT NULL DEFAULT 7;
-- every warning the canary version added; warning_id stays the first of them
-- nullable like every Prisma scalar list (Prisma writes [] for it); the code reads a missing list as empty
ALTER TABLE "canaries" ADD COLUMN "warning_ids" UUID[] DEFAULT '{}';
UPDATE "canaries" SET "warning_ids" = ARRAY["warning_id"] WHERE "warning_id" IS NOT NULL;
-- the last look's counts per side and warning, and what the canary waits for
ALTER TABLE "canaries" ADD COLUMN "state" JSONB;

ALTER TABLE "rollout_policies" ADD COLUMN "design" VARCHAR(16) NOT NULL DEFAULT 'alternating';
ALTER TABLE "rollout_policies" ADD CONSTRAINT "rollout_policies_design_check" CHECK ("design" IN ('alternating', 'split'));
