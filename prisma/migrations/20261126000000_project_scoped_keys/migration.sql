-- Citus-ready keys (issue 19, docs/scaling.md): every table keyed by id alone gets the key (project_id, id), every
-- unique index and foreign key between project tables leads with project_id, so each table can be distributed by
-- project_id with a project's rows of every table on one node. tool_versions gains the project_id it lacked, taken
-- from its tool. Existing rows keep their ids; only keys and indexes change.

-- tool_versions: the project of each version is its tool's
ALTER TABLE "tool_versions" ADD COLUMN "project_id" UUID;
UPDATE "tool_versions" v SET "project_id" = t."project_id" FROM "tools" t WHERE t."id" = v."tool_id";
ALTER TABLE "tool_versions" ALTER COLUMN "project_id" SET NOT NULL;

-- A row bound to its parent by id alone belongs to its parent's project. The code always wrote them alike; this makes
-- sure of it, so the foreign keys that pair project_id below can be added.
UPDATE "tool_warnings" w SET "project_id" = t."project_id" FROM "tools" t
WHERE t."id" = w."tool_id" AND w."project_id" <> t."project_id";
UPDATE "alert_incidents" i SET "project_id" = r."project_id" FROM "alert_rules" r
WHERE r."id" = i."rule_id" AND i."project_id" <> r."project_id";
UPDATE "alert_deliveries" d SET "project_id" = s."project_id" FROM "alert_destinations" s
WHERE s."id" = d."destination_id" AND d."project_id" <> s."project_id";

-- the foreign keys by id alone go first: they depend on the primary keys replaced below
ALTER TABLE "tool_versions" DROP CONSTRAINT "tool_versions_tool_id_fkey";
ALTER TABLE "tool_warnings" DROP CONSTRAINT "tool_warnings_tool_id_fkey";
ALTER TABLE "alert_incidents" DROP CONSTRAINT "alert_incidents_rule_id_fkey";
ALTER TABLE "alert_deliveries" DROP CONSTRAINT "alert_deliveries_destination_id_fkey";

ALTER TABLE "tools" DROP CONSTRAINT "tools_pkey", ADD CONSTRAINT "tools_pkey" PRIMARY KEY ("project_id", "id");
ALTER TABLE "tool_versions" DROP CONSTRAINT "tool_versions_pkey",
  ADD CONSTRAINT "tool_versions_pkey" PRIMARY KEY ("project_id", "tool_id", "version");
ALTER TABLE "tool_warnings" DROP CONSTRAINT "tool_warnings_pkey", ADD CONSTRAINT "tool_warnings_pkey" PRIMARY KEY ("project_id", "id");
ALTER TABLE "error_groups" DROP CONSTRAINT "error_groups_pkey", ADD CONSTRAINT "error_groups_pkey" PRIMARY KEY ("project_id", "id");
ALTER TABLE "job_runs" DROP CONSTRAINT "job_runs_pkey", ADD CONSTRAINT "job_runs_pkey" PRIMARY KEY ("project_id", "id");
ALTER TABLE "recommendations" DROP CONSTRAINT "recommendations_pkey",
  ADD CONSTRAINT "recommendations_pkey" PRIMARY KEY ("project_id", "id");
ALTER TABLE "alert_rules" DROP CONSTRAINT "alert_rules_pkey", ADD CONSTRAINT "alert_rules_pkey" PRIMARY KEY ("project_id", "id");
ALTER TABLE "alert_destinations" DROP CONSTRAINT "alert_destinations_pkey",
  ADD CONSTRAINT "alert_destinations_pkey" PRIMARY KEY ("project_id", "id");
ALTER TABLE "alert_incidents" DROP CONSTRAINT "alert_incidents_pkey",
  ADD CONSTRAINT "alert_incidents_pkey" PRIMARY KEY ("project_id", "id");
ALTER TABLE "alert_deliveries" DROP CONSTRAINT "alert_deliveries_pkey",
  ADD CONSTRAINT "alert_deliveries_pkey" PRIMARY KEY ("project_id", "id");

-- A tool's warning per evidence key. The new unique index starts with (project_id, tool_id), so it also serves every
-- lookup the index on (project_id, tool_id) served; that one goes.
DROP INDEX "tool_warnings_tool_id_evidence_key_key";
DROP INDEX "tool_warnings_project_id_tool_id_idx";
CREATE UNIQUE INDEX "tool_warnings_project_id_tool_id_evidence_key_key" ON "tool_warnings"("project_id", "tool_id", "evidence_key");

-- the secondary indexes by parent id lead with project_id, as every query of them does now
DROP INDEX "alert_incidents_rule_id_subject_opened_at_idx";
CREATE INDEX "alert_incidents_project_id_rule_id_subject_opened_at_idx" ON "alert_incidents"("project_id", "rule_id", "subject", "opened_at");
DROP INDEX "alert_deliveries_destination_id_created_at_idx";
CREATE INDEX "alert_deliveries_project_id_destination_id_created_at_idx" ON "alert_deliveries"("project_id", "destination_id", "created_at");

-- the same cascades as before, each pairing project_id with project_id
ALTER TABLE "tool_versions" ADD CONSTRAINT "tool_versions_project_id_tool_id_fkey" FOREIGN KEY ("project_id", "tool_id")
  REFERENCES "tools"("project_id", "id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "tool_warnings" ADD CONSTRAINT "tool_warnings_project_id_tool_id_fkey" FOREIGN KEY ("project_id", "tool_id")
  REFERENCES "tools"("project_id", "id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "alert_incidents" ADD CONSTRAINT "alert_incidents_project_id_rule_id_fkey" FOREIGN KEY ("project_id", "rule_id")
  REFERENCES "alert_rules"("project_id", "id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "alert_deliveries" ADD CONSTRAINT "alert_deliveries_project_id_destination_id_fkey" FOREIGN KEY ("project_id", "destination_id")
  REFERENCES "alert_destinations"("project_id", "id") ON DELETE CASCADE ON UPDATE CASCADE;
