-- Guarded execution (issue 22): what the SDKs' guard did to a call before the tool ran, and the per-project policy
-- served with each tool's guard section.

-- correction: {original, corrected, kinds[]} when the guard corrected the arguments the tool then ran with;
-- prevented: the guard refused the call, so the tool never ran (the event is the mistake it stopped).
ALTER TABLE "events" ADD COLUMN "correction" JSONB;
ALTER TABLE "events" ADD COLUMN "prevented" BOOLEAN NOT NULL DEFAULT false;

CREATE TABLE "guard_policies" (
    "project_id" UUID NOT NULL,
    "mode" VARCHAR(16) NOT NULL DEFAULT 'correct',
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "guard_policies_pkey" PRIMARY KEY ("project_id"),
    CONSTRAINT "guard_policies_mode_check" CHECK ("mode" IN ('off', 'report', 'correct', 'strict'))
);
