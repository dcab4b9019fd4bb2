-- CreateTable
CREATE TABLE "projects" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "name" VARCHAR(100) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "projects_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "api_keys" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "project_id" UUID NOT NULL,
    "key_hash" CHAR(64) NOT NULL,
    "key_prefix" VARCHAR(16) NOT NULL,
    "name" VARCHAR(100) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revoked_at" TIMESTAMPTZ(3),
    "last_used_at" TIMESTAMPTZ(3),

    CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "tools" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "project_id" UUID NOT NULL,
    "name" VARCHAR(200) NOT NULL,
    "description" TEXT NOT NULL,
    "parameters" JSONB,
    "metadata" JSONB,
    "version" INTEGER NOT NULL DEFAULT 1,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "archived_at" TIMESTAMPTZ(3),

    CONSTRAINT "tools_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "events" (
    "project_id" UUID NOT NULL,
    "id" VARCHAR(128) NOT NULL,
    "tool" VARCHAR(200) NOT NULL,
    "status" VARCHAR(16) NOT NULL,
    "arguments" JSONB,
    "result" JSONB,
    "error_type" VARCHAR(200),
    "error_message" TEXT,
    "error_stack" TEXT,
    "duration_ms" DOUBLE PRECISION,
    "occurred_at" TIMESTAMPTZ(3) NOT NULL,
    "received_at" TIMESTAMPTZ(3) NOT NULL,
    "stored_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "agent" VARCHAR(200),
    "model" VARCHAR(200),
    "framework" VARCHAR(100),
    "session_id" VARCHAR(200),
    "trace_id" VARCHAR(200),
    "run_id" VARCHAR(200),
    "tool_call_id" VARCHAR(200),
    "description_version" INTEGER,
    "prompt" TEXT,
    "metadata" JSONB,
    "category" VARCHAR(32),
    "subtype" VARCHAR(32),
    "argument_path" VARCHAR(500),
    "fingerprint" CHAR(40),
    "error_group_id" UUID,
    "evidence" VARCHAR(16),
    "wrong_argument" VARCHAR(200),
    "intended_argument" VARCHAR(200),
    "offending_value" DOUBLE PRECISION,
    "array_for_scalar" BOOLEAN NOT NULL DEFAULT false,

    CONSTRAINT "events_pkey" PRIMARY KEY ("project_id","id")
);

-- CreateTable
CREATE TABLE "error_groups" (
    "id" UUID NOT NULL,
    "project_id" UUID NOT NULL,
    "fingerprint" CHAR(40) NOT NULL,
    "tool" VARCHAR(200) NOT NULL,
    "category" VARCHAR(32) NOT NULL,
    "subtype" VARCHAR(32),
    "argument_path" VARCHAR(500),
    "message_template" TEXT NOT NULL,
    "count" BIGINT NOT NULL DEFAULT 0,
    "first_seen" TIMESTAMPTZ(3) NOT NULL,
    "last_seen" TIMESTAMPTZ(3) NOT NULL,
    "sample_event_ids" VARCHAR(128)[],
    "status" VARCHAR(16) NOT NULL DEFAULT 'open',

    CONSTRAINT "error_groups_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "hourly_rollups" (
    "project_id" UUID NOT NULL,
    "tool" VARCHAR(200) NOT NULL,
    "hour" TIMESTAMPTZ(3) NOT NULL,
    "calls" INTEGER NOT NULL DEFAULT 0,
    "errors" INTEGER NOT NULL DEFAULT 0,
    "latency_count" INTEGER NOT NULL DEFAULT 0,
    "latency_sum_ms" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "latency_buckets" INTEGER[],

    CONSTRAINT "hourly_rollups_pkey" PRIMARY KEY ("project_id","tool","hour")
);

-- CreateTable
CREATE TABLE "hourly_error_rollups" (
    "project_id" UUID NOT NULL,
    "tool" VARCHAR(200) NOT NULL,
    "hour" TIMESTAMPTZ(3) NOT NULL,
    "category" VARCHAR(32) NOT NULL,
    "subtype" VARCHAR(32) NOT NULL DEFAULT '',
    "count" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "hourly_error_rollups_pkey" PRIMARY KEY ("project_id","tool","hour","category","subtype")
);

-- CreateIndex
CREATE UNIQUE INDEX "projects_name_key" ON "projects"("name");

-- CreateIndex
CREATE UNIQUE INDEX "api_keys_key_hash_key" ON "api_keys"("key_hash");

-- CreateIndex
CREATE INDEX "api_keys_project_id_idx" ON "api_keys"("project_id");

-- CreateIndex
CREATE UNIQUE INDEX "tools_project_id_name_key" ON "tools"("project_id", "name");

-- CreateIndex
CREATE INDEX "events_project_id_occurred_at_id_idx" ON "events"("project_id", "occurred_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "events_project_id_tool_occurred_at_idx" ON "events"("project_id", "tool", "occurred_at" DESC);

-- CreateIndex
CREATE INDEX "events_error_group_id_idx" ON "events"("error_group_id");

-- CreateIndex
CREATE UNIQUE INDEX "error_groups_project_id_fingerprint_key" ON "error_groups"("project_id", "fingerprint");

-- CreateIndex
CREATE INDEX "error_groups_project_id_tool_idx" ON "error_groups"("project_id", "tool");

-- CreateIndex
CREATE INDEX "hourly_rollups_project_id_hour_idx" ON "hourly_rollups"("project_id", "hour");

-- CreateIndex
CREATE INDEX "hourly_error_rollups_project_id_hour_idx" ON "hourly_error_rollups"("project_id", "hour");

-- AddForeignKey
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "tools" ADD CONSTRAINT "tools_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;
