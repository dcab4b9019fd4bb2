-- Calls, errors and errors per category by agent and by model, per tool and hour, kept by the worker in the same
-- transaction as hourly_rollups, so the dashboard's agent and model views (and the stats routes' agent/model filters)
-- read rollups, never events. value '' is "not reported"; error_categories maps a category to its count.
CREATE TABLE "hourly_dimension_rollups" (
    "project_id" UUID NOT NULL,
    "dimension" VARCHAR(8) NOT NULL,
    "value" VARCHAR(200) NOT NULL DEFAULT '',
    "tool" VARCHAR(200) NOT NULL,
    "hour" TIMESTAMPTZ(3) NOT NULL,
    "calls" INTEGER NOT NULL DEFAULT 0,
    "errors" INTEGER NOT NULL DEFAULT 0,
    "error_categories" JSONB NOT NULL DEFAULT '{}',

    CONSTRAINT "hourly_dimension_rollups_pkey" PRIMARY KEY ("project_id","dimension","hour","value","tool")
);
