-- Failures reported as results (issue 37, docs/result-failures.md): a call reported as a success whose result says it
-- failed is stored as a failure; result_rule names the rule that decided it (null for every other event), so the
-- original report stays visible. A project turns rules off in result_failure_policies; a project without a row has
-- every rule on.
ALTER TABLE "events" ADD COLUMN "result_rule" VARCHAR(32);

CREATE TABLE "result_failure_policies" (
    "project_id" UUID NOT NULL,
    -- nullable like every Prisma scalar list (Prisma writes [] for it); the code reads a missing list as empty
    "disabled_rules" VARCHAR(32)[] DEFAULT '{}',
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "result_failure_policies_pkey" PRIMARY KEY ("project_id")
);
