-- Guarded execution's effect (issue 22): the daily rollups a warning's effect is measured from count what the SDKs'
-- guard did apart, so a measured effect says both how often the model still made the mistake and how many of those
-- the guard stopped (prevented: refused, the tool never ran) or repaired (corrected: ran with corrected arguments).
-- Existing rows are calls without a guard: 0 is their true count.
ALTER TABLE "daily_version_rollups" ADD COLUMN "corrected" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE "daily_version_rollups" ADD COLUMN "prevented" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE "daily_mistake_rollups" ADD COLUMN "prevented" INTEGER NOT NULL DEFAULT 0;
