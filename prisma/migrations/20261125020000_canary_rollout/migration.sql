-- Guarded rollout (src/rollout, docs/rollout.md): a new description version served to a share of agents (a canary)
-- until the nightly promotes or rolls it back, and the per-project policy that starts canaries.
CREATE TABLE "canaries" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "project_id" UUID NOT NULL,
    "tool_id" UUID NOT NULL,
    "tool" VARCHAR(200) NOT NULL,
    "warning_id" UUID,
    "previous_version" INTEGER NOT NULL,
    "canary_version" INTEGER NOT NULL,
    "share" DOUBLE PRECISION NOT NULL,
    "min_calls" INTEGER NOT NULL,
    "status" VARCHAR(16) NOT NULL DEFAULT 'running',
    "decision" JSONB,
    "started_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "decided_at" TIMESTAMPTZ(3),

    CONSTRAINT "canaries_pkey" PRIMARY KEY ("project_id", "id"),
    CONSTRAINT "canaries_share_check" CHECK ("share" > 0 AND "share" < 1),
    CONSTRAINT "canaries_status_check" CHECK ("status" IN ('running', 'promoted', 'rolled_back', 'superseded'))
);
-- keyed by project first, no foreign key to tools (keyed by id alone): distributable by project_id (docs/scaling.md)
CREATE UNIQUE INDEX "canaries_project_id_tool_id_canary_version_key" ON "canaries"("project_id", "tool_id", "canary_version");
CREATE INDEX "canaries_project_id_status_idx" ON "canaries"("project_id", "status");

CREATE TABLE "rollout_policies" (
    "project_id" UUID NOT NULL,
    "is_enabled" BOOLEAN NOT NULL DEFAULT true,
    "share" DOUBLE PRECISION NOT NULL DEFAULT 0.2,
    "min_calls" INTEGER NOT NULL DEFAULT 100,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "rollout_policies_pkey" PRIMARY KEY ("project_id")
);
