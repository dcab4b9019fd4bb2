-- AlterTable
ALTER TABLE "error_groups" ADD COLUMN     "array_for_scalar_count" BIGINT NOT NULL DEFAULT 0,
ADD COLUMN     "intended_argument" VARCHAR(200),
ADD COLUMN     "max_offending_value" DOUBLE PRECISION,
ADD COLUMN     "min_offending_value" DOUBLE PRECISION;

-- CreateTable
CREATE TABLE "argument_value_ranges" (
    "project_id" UUID NOT NULL,
    "tool" VARCHAR(200) NOT NULL,
    "argument_path" VARCHAR(500) NOT NULL,
    "success_count" BIGINT NOT NULL DEFAULT 0,
    "min_value" DOUBLE PRECISION NOT NULL,
    "max_value" DOUBLE PRECISION NOT NULL,

    CONSTRAINT "argument_value_ranges_pkey" PRIMARY KEY ("project_id","tool","argument_path")
);

-- CreateTable
CREATE TABLE "daily_version_rollups" (
    "project_id" UUID NOT NULL,
    "tool" VARCHAR(200) NOT NULL,
    "day" DATE NOT NULL,
    "description_version" INTEGER NOT NULL,
    "calls" INTEGER NOT NULL DEFAULT 0,
    "errors" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "daily_version_rollups_pkey" PRIMARY KEY ("project_id","tool","day","description_version")
);

-- CreateTable
CREATE TABLE "daily_mistake_rollups" (
    "project_id" UUID NOT NULL,
    "tool" VARCHAR(200) NOT NULL,
    "day" DATE NOT NULL,
    "description_version" INTEGER NOT NULL,
    "category" VARCHAR(32) NOT NULL,
    "subtype" VARCHAR(32) NOT NULL DEFAULT '',
    "argument_path" VARCHAR(500) NOT NULL DEFAULT '',
    "count" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "daily_mistake_rollups_pkey" PRIMARY KEY ("project_id","tool","day","description_version","category","subtype","argument_path")
);

-- CreateTable
CREATE TABLE "daily_tool_stats" (
    "project_id" UUID NOT NULL,
    "tool" VARCHAR(200) NOT NULL,
    "day" DATE NOT NULL,
    "calls" INTEGER NOT NULL,
    "successes" INTEGER NOT NULL,
    "errors" INTEGER NOT NULL,
    "success_rate" DOUBLE PRECISION,
    "errors_by_category" JSONB NOT NULL,
    "errors_by_subtype" JSONB NOT NULL,
    "latency_count" INTEGER NOT NULL,
    "latency_buckets" INTEGER[],
    "latency_p50_ms" DOUBLE PRECISION,
    "latency_p95_ms" DOUBLE PRECISION,
    "prev7_calls" INTEGER NOT NULL,
    "prev7_success_rate" DOUBLE PRECISION,
    "success_rate_change" DOUBLE PRECISION,
    "computed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "daily_tool_stats_pkey" PRIMARY KEY ("project_id","tool","day")
);

-- CreateTable
CREATE TABLE "job_runs" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "project_id" UUID NOT NULL,
    "job" VARCHAR(32) NOT NULL,
    "day" DATE NOT NULL,
    "trigger" VARCHAR(16) NOT NULL,
    "status" VARCHAR(16) NOT NULL,
    "counts" JSONB,
    "error" TEXT,
    "started_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finished_at" TIMESTAMPTZ(3),

    CONSTRAINT "job_runs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "recommendations" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "project_id" UUID NOT NULL,
    "tool" VARCHAR(200) NOT NULL,
    "kind" VARCHAR(32) NOT NULL,
    "evidence_key" VARCHAR(500) NOT NULL,
    "text" TEXT NOT NULL,
    "evidence" JSONB NOT NULL,
    "confidence" DOUBLE PRECISION NOT NULL,
    "status" VARCHAR(16) NOT NULL DEFAULT 'proposed',
    "warning_id" UUID,
    "applied_version" INTEGER,
    "applied_at" TIMESTAMPTZ(3),
    "effect" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "recommendations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "project_policies" (
    "project_id" UUID NOT NULL,
    "auto_apply" BOOLEAN NOT NULL DEFAULT true,
    "min_occurrences" INTEGER NOT NULL DEFAULT 5,
    "min_share" DOUBLE PRECISION NOT NULL DEFAULT 0.05,
    "auto_apply_kinds" VARCHAR(32)[],
    "auto_retire" BOOLEAN NOT NULL DEFAULT true,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "project_policies_pkey" PRIMARY KEY ("project_id")
);

-- CreateIndex
CREATE INDEX "daily_tool_stats_project_id_day_idx" ON "daily_tool_stats"("project_id", "day");

-- CreateIndex
CREATE INDEX "job_runs_project_id_started_at_idx" ON "job_runs"("project_id", "started_at" DESC);

-- CreateIndex
CREATE UNIQUE INDEX "recommendations_project_id_tool_evidence_key_key" ON "recommendations"("project_id", "tool", "evidence_key");

-- CreateIndex
CREATE INDEX "recommendations_project_id_status_idx" ON "recommendations"("project_id", "status");
