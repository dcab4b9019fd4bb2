-- Alerts (src/alerts, docs/alerts.md): rules evaluated by the worker from the hourly rollups, destinations notified
-- through the alerts queue, the incidents rules open and resolve, and every delivery attempt.
CREATE TABLE "alert_rules" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "project_id" UUID NOT NULL,
    "name" VARCHAR(100) NOT NULL,
    "kind" VARCHAR(32) NOT NULL,
    "tools" VARCHAR(200)[],
    "threshold" DOUBLE PRECISION,
    "min_calls" INTEGER NOT NULL,
    "window_hours" INTEGER NOT NULL,
    "cooldown_minutes" INTEGER NOT NULL,
    "is_enabled" BOOLEAN NOT NULL DEFAULT true,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "alert_rules_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "alert_rules_project_id_created_at_idx" ON "alert_rules"("project_id", "created_at");

CREATE TABLE "alert_destinations" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "project_id" UUID NOT NULL,
    "name" VARCHAR(100) NOT NULL,
    "kind" VARCHAR(16) NOT NULL,
    "url" VARCHAR(2000) NOT NULL,
    "secret" VARCHAR(100) NOT NULL,
    "paused_at" TIMESTAMPTZ(3),
    "failing_since" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "alert_destinations_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "alert_destinations_project_id_created_at_idx" ON "alert_destinations"("project_id", "created_at");

CREATE TABLE "alert_incidents" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "project_id" UUID NOT NULL,
    "rule_id" UUID NOT NULL,
    "subject" VARCHAR(300) NOT NULL,
    "tool" VARCHAR(200),
    "status" VARCHAR(16) NOT NULL,
    "summary" TEXT NOT NULL,
    "details" JSONB NOT NULL,
    "is_notified" BOOLEAN NOT NULL,
    "opened_at" TIMESTAMPTZ(3) NOT NULL,
    "resolved_at" TIMESTAMPTZ(3),

    CONSTRAINT "alert_incidents_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "alert_incidents_rule_id_subject_opened_at_idx" ON "alert_incidents"("rule_id", "subject", "opened_at");
CREATE INDEX "alert_incidents_project_id_status_opened_at_idx" ON "alert_incidents"("project_id", "status", "opened_at");
ALTER TABLE "alert_incidents" ADD CONSTRAINT "alert_incidents_rule_id_fkey" FOREIGN KEY ("rule_id") REFERENCES "alert_rules"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "alert_deliveries" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "project_id" UUID NOT NULL,
    "destination_id" UUID NOT NULL,
    "notification_id" VARCHAR(200) NOT NULL,
    "incident_id" UUID,
    "event" VARCHAR(16) NOT NULL,
    "attempt" INTEGER NOT NULL,
    "outcome" VARCHAR(16) NOT NULL,
    "status_code" INTEGER,
    "latency_ms" INTEGER,
    "error" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "alert_deliveries_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "alert_deliveries_project_id_created_at_id_idx" ON "alert_deliveries"("project_id", "created_at" DESC, "id" DESC);
CREATE INDEX "alert_deliveries_destination_id_created_at_idx" ON "alert_deliveries"("destination_id", "created_at");
ALTER TABLE "alert_deliveries" ADD CONSTRAINT "alert_deliveries_destination_id_fkey" FOREIGN KEY ("destination_id") REFERENCES "alert_destinations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "alert_evaluations" (
    "window_start" TIMESTAMPTZ(3) NOT NULL,
    "started_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finished_at" TIMESTAMPTZ(3),
    "counts" JSONB,

    CONSTRAINT "alert_evaluations_pkey" PRIMARY KEY ("window_start")
);
