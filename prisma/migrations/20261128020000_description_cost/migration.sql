-- What a description costs and repeated calls (issue 37, docs/description-cost.md). Each description version records
-- its length in o200k_base tokens, and the tokens its warnings block adds (null for versions made before this
-- migration: they are not re-counted). A project may cap the tokens the nightly's warnings add to one tool.
ALTER TABLE "tool_versions" ADD COLUMN "description_tokens" INTEGER;
ALTER TABLE "tool_versions" ADD COLUMN "warning_tokens" INTEGER;

ALTER TABLE "project_policies" ADD COLUMN "warning_token_cap" INTEGER NOT NULL DEFAULT 120;

-- Per tool, UTC day and description version, the sessions that called the tool (events with a session id), their
-- calls of the tool, their steps (calls of any tool that day) and the repeated calls (identical calls beyond the
-- threshold); replaced per day by the nightly.
CREATE TABLE "daily_session_rollups" (
    "project_id" UUID NOT NULL,
    "tool" VARCHAR(200) NOT NULL,
    "day" DATE NOT NULL,
    "description_version" INTEGER NOT NULL,
    "sessions" INTEGER NOT NULL DEFAULT 0,
    "calls" INTEGER NOT NULL DEFAULT 0,
    "steps" INTEGER NOT NULL DEFAULT 0,
    "repeated_calls" INTEGER NOT NULL DEFAULT 0,
    "sessions_with_repeats" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "daily_session_rollups_pkey" PRIMARY KEY ("project_id","tool","day","description_version")
);
