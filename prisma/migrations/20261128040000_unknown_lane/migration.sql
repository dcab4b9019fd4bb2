-- The unknown lane (docs/unknown-lane.md): failures the categorizer left `unknown`, grouped per project by their
-- message's template (the variable parts masked), and the labels a person gave templates. The worker writes
-- unknown_templates; the API writes template_labels, which the worker reads to categorize a labelled template's
-- later events. A template's id is derived from (project, template), like an error group's, so both tables share it.
CREATE TABLE "unknown_templates" (
    "project_id" UUID NOT NULL,
    "id" UUID NOT NULL,
    "template" VARCHAR(300) NOT NULL,
    "count" BIGINT NOT NULL DEFAULT 0,
    "first_seen" TIMESTAMPTZ(3) NOT NULL,
    "last_seen" TIMESTAMPTZ(3) NOT NULL,
    "sample_event_ids" VARCHAR(128)[],
    "example_tool" VARCHAR(200) NOT NULL,
    "example_error_type" VARCHAR(200),
    "example_message" VARCHAR(2000) NOT NULL,

    CONSTRAINT "unknown_templates_pkey" PRIMARY KEY ("project_id","id")
);

CREATE INDEX "unknown_templates_project_id_last_seen_id_idx" ON "unknown_templates"("project_id", "last_seen", "id");

CREATE TABLE "template_labels" (
    "project_id" UUID NOT NULL,
    "template_id" UUID NOT NULL,
    "category" VARCHAR(32) NOT NULL,
    "subtype" VARCHAR(32),
    "labelled_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "template_labels_pkey" PRIMARY KEY ("project_id","template_id")
);
