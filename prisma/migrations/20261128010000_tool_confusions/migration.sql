-- Tool confusion (issue 37, docs/tool-confusion.md): per UTC day, ordered pair (tool A called, then tool B with
-- overlapping arguments that succeeded) and description version of A, the confusions of A for B and the sessions that
-- called A or B; replaced per day by the nightly. The sessions are the denominator a confusion warning is measured by.
CREATE TABLE "daily_tool_confusions" (
    "project_id" UUID NOT NULL,
    "tool" VARCHAR(200) NOT NULL,
    "confused_with" VARCHAR(200) NOT NULL,
    "day" DATE NOT NULL,
    "description_version" INTEGER NOT NULL,
    "confusions" INTEGER NOT NULL DEFAULT 0,
    "confused_sessions" INTEGER NOT NULL DEFAULT 0,
    "sessions" INTEGER NOT NULL DEFAULT 0,
    "example_session_ids" VARCHAR(200)[] DEFAULT '{}',

    CONSTRAINT "daily_tool_confusions_pkey" PRIMARY KEY ("project_id","tool","confused_with","day","description_version")
);
