-- Review mode (docs/review-mode.md): a project may hold every recommendation the nightly would apply until a person
-- approves it; the approval is kept on the recommendation.
ALTER TABLE "project_policies" ADD COLUMN "review_mode" BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE "recommendations" ADD COLUMN "approved_at" TIMESTAMPTZ(3);
