-- Effects per model and per framework (issue 37, docs/rollout-statistics.md): the calls and the diagnosed mistakes of
-- each tool per UTC day, description version and the model or framework the events named, replaced per day by the
-- nightly from that day's events. category '' is the row of all calls of the value; every other row counts mistakes.
CREATE TABLE "daily_breakdown_rollups" (
    "project_id" UUID NOT NULL,
    "tool" VARCHAR(200) NOT NULL,
    "day" DATE NOT NULL,
    "description_version" INTEGER NOT NULL,
    "dimension" VARCHAR(16) NOT NULL,
    "value" VARCHAR(200) NOT NULL,
    "category" VARCHAR(32) NOT NULL DEFAULT '',
    "subtype" VARCHAR(32) NOT NULL DEFAULT '',
    "argument_path" VARCHAR(500) NOT NULL DEFAULT '',
    "count" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "daily_breakdown_rollups_pkey" PRIMARY KEY ("project_id","tool","day","description_version","dimension","value","category","subtype","argument_path")
);
