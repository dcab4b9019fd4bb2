-- CreateTable
CREATE TABLE "tool_versions" (
    "tool_id" UUID NOT NULL,
    "version" INTEGER NOT NULL,
    "base_description" TEXT NOT NULL,
    "description" TEXT NOT NULL,
    "parameters" JSONB,
    "warnings" JSONB NOT NULL,
    "warning_ids" UUID[],
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "tool_versions_pkey" PRIMARY KEY ("tool_id","version")
);

-- CreateTable
CREATE TABLE "tool_warnings" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "project_id" UUID NOT NULL,
    "tool_id" UUID NOT NULL,
    "kind" VARCHAR(64) NOT NULL,
    "text" TEXT NOT NULL,
    "evidence" JSONB NOT NULL,
    "evidence_key" VARCHAR(500),
    "source" VARCHAR(16) NOT NULL,
    "status" VARCHAR(16) NOT NULL DEFAULT 'active',
    "dismissed_reason" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "tool_warnings_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "tool_warnings_project_id_tool_id_idx" ON "tool_warnings"("project_id", "tool_id");

-- CreateIndex
CREATE UNIQUE INDEX "tool_warnings_tool_id_evidence_key_key" ON "tool_warnings"("tool_id", "evidence_key");

-- AddForeignKey
ALTER TABLE "tool_versions" ADD CONSTRAINT "tool_versions_tool_id_fkey" FOREIGN KEY ("tool_id") REFERENCES "tools"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "tool_warnings" ADD CONSTRAINT "tool_warnings_tool_id_fkey" FOREIGN KEY ("tool_id") REFERENCES "tools"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Tools registered before versions existed get their current state as a snapshot (no warnings yet).
INSERT INTO "tool_versions" ("tool_id", "version", "base_description", "description", "parameters", "warnings", "warning_ids")
SELECT "id", "version", "description", "description", "parameters", '[]'::jsonb, '{}'::uuid[] FROM "tools";
