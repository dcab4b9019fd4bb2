-- Calls to a name that is not a registered tool, counted against the tool the nightly matched it to, per UTC day and
-- the description version of that tool the calling session had loaded (0: unknown). The nightly job replaces a day's
-- rows each time it runs; they are the mistakes a "misnamed_tool" warning is measured by.
CREATE TABLE "daily_misnamed_calls" (
    "project_id" UUID NOT NULL,
    "tool" VARCHAR(200) NOT NULL,
    "called_name" VARCHAR(200) NOT NULL,
    "day" DATE NOT NULL,
    "description_version" INTEGER NOT NULL,
    "calls" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "daily_misnamed_calls_pkey" PRIMARY KEY ("project_id","tool","called_name","day","description_version")
);

-- Project-level notes for people (listed on GET /v1/tools and the dashboard), e.g. calls to a tool name that is
-- like no registered tool. The nightly job replaces each kind's notes of a project when it runs.
CREATE TABLE "project_notes" (
    "project_id" UUID NOT NULL,
    "kind" VARCHAR(32) NOT NULL,
    "subject" VARCHAR(200) NOT NULL,
    "text" TEXT NOT NULL,
    "evidence" JSONB NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "project_notes_pkey" PRIMARY KEY ("project_id","kind","subject")
);
