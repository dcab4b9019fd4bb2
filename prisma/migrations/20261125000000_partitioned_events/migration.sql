-- Raw events become a table range-partitioned by day on received_at (docs/retention.md), so retention drops whole
-- days instead of deleting rows one by one.
--
-- Why received_at: the API stamps it when it accepts a batch, so it is always "now-ish" and a client cannot make an
-- event land in 1970 or 2999 (occurred_at is the client's word and can be anything Postgres stores).
--
-- A partitioned table's unique keys must contain the partition key, so the primary key becomes
-- (project_id, id, received_at). What was the idempotency key, (project_id, id), moves to event_ids: one narrow,
-- unpartitioned row per stored event, inserted before the event in the same statement; an id already there is a
-- re-send whatever day it comes back on (src/categorize/categorize.repository.ts). Retention trims it with the events.
--
-- Existing rows are moved in this migration's transaction: one partition per UTC day that holds events, plus today
-- and the next 7 days; later days are created ahead by the scheduler role (src/retention). A DEFAULT partition takes
-- any row whose day has no partition yet, so an insert never fails for a missing partition.

-- the old table keeps its rows until they are copied; its secondary indexes are not needed for that
DROP INDEX "events_project_id_occurred_at_id_idx";
DROP INDEX "events_project_id_tool_occurred_at_idx";
DROP INDEX "events_error_group_id_idx";
ALTER TABLE "events" RENAME CONSTRAINT "events_pkey" TO "events_unpartitioned_pkey";
ALTER TABLE "events" RENAME TO "events_unpartitioned";

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
    "evidence" VARCHAR(32),
    "wrong_argument" VARCHAR(200),
    "intended_argument" VARCHAR(200),
    "offending_value" DOUBLE PRECISION,
    "array_for_scalar" BOOLEAN NOT NULL DEFAULT false,

    CONSTRAINT "events_pkey" PRIMARY KEY ("project_id","id","received_at")
) PARTITION BY RANGE ("received_at");

CREATE INDEX "events_project_id_occurred_at_id_idx" ON "events"("project_id", "occurred_at" DESC, "id" DESC);
CREATE INDEX "events_project_id_tool_occurred_at_idx" ON "events"("project_id", "tool", "occurred_at" DESC);
CREATE INDEX "events_error_group_id_idx" ON "events"("error_group_id");

CREATE TABLE "events_default" PARTITION OF "events" DEFAULT;

DO $$
DECLARE
  day DATE;
BEGIN
  FOR day IN
    SELECT DISTINCT ("received_at" AT TIME ZONE 'UTC')::date FROM "events_unpartitioned"
    UNION
    SELECT generate_series((now() AT TIME ZONE 'UTC')::date, (now() AT TIME ZONE 'UTC')::date + 7, '1 day')::date
    ORDER BY 1
  LOOP
    EXECUTE format('CREATE TABLE %I PARTITION OF "events" FOR VALUES FROM (%L) TO (%L)',
      'events_p' || to_char(day, 'YYYYMMDD'), day || ' 00:00:00+00', (day + 1) || ' 00:00:00+00');
  END LOOP;
END $$;

INSERT INTO "events" ("project_id", "id", "tool", "status", "arguments", "result", "error_type", "error_message",
  "error_stack", "duration_ms", "occurred_at", "received_at", "stored_at", "agent", "model", "framework", "session_id",
  "trace_id", "run_id", "tool_call_id", "description_version", "prompt", "metadata", "category", "subtype",
  "argument_path", "fingerprint", "error_group_id", "evidence", "wrong_argument", "intended_argument",
  "offending_value", "array_for_scalar")
SELECT "project_id", "id", "tool", "status", "arguments", "result", "error_type", "error_message",
  "error_stack", "duration_ms", "occurred_at", "received_at", "stored_at", "agent", "model", "framework", "session_id",
  "trace_id", "run_id", "tool_call_id", "description_version", "prompt", "metadata", "category", "subtype",
  "argument_path", "fingerprint", "error_group_id", "evidence", "wrong_argument", "intended_argument",
  "offending_value", "array_for_scalar"
FROM "events_unpartitioned";

-- The idempotency key of events across partitions; received_at says which partition holds the event.
CREATE TABLE "event_ids" (
    "project_id" UUID NOT NULL,
    "id" VARCHAR(128) NOT NULL,
    "received_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "event_ids_pkey" PRIMARY KEY ("project_id","id")
);
CREATE INDEX "event_ids_project_id_received_at_idx" ON "event_ids"("project_id", "received_at");

INSERT INTO "event_ids" ("project_id", "id", "received_at")
SELECT "project_id", "id", "received_at" FROM "events_unpartitioned";

DROP TABLE "events_unpartitioned";

-- Days a project's raw events are kept (rollups, error groups and daily stats are kept 400 days whatever this says).
ALTER TABLE "projects" ADD COLUMN "raw_event_retention_days" INTEGER NOT NULL DEFAULT 30;
ALTER TABLE "projects" ADD CONSTRAINT "projects_raw_event_retention_days_check"
  CHECK ("raw_event_retention_days" BETWEEN 1 AND 3650);
