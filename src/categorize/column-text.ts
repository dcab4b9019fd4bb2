/** Character limits of the text columns the worker fills from event data (prisma/schema.prisma). */
export const COLUMN_CHARS = {
  eventId: 128,
  tool: 200,
  argumentPath: 500,
  argumentName: 200,
} as const;

/**
 * Text exactly as Postgres will hold it in a varchar(maxChars) column: cut to the limit, and every lone UTF-16
 * surrogate (also one left by the cut) as U+FFFD, which is what node-postgres sends for it. Aggregation keys are built
 * from this value, so two keys are equal in the batch exactly when their rows are equal in the table: no
 * INSERT ... ON CONFLICT DO UPDATE ever proposes the same row twice.
 */
export function columnText(text: string, maxChars: number): string {
  return text.slice(0, maxChars).toWellFormed();
}
