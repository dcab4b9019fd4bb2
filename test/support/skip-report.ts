import { appendFileSync } from 'node:fs';

/**
 * Says loudly that a test is skipped and why: in the test output, and, when CI sets TOOLCOACH_SKIP_REPORT, in a file
 * whose lines CI prints as "skipped: <why>" next to its closing count, so a missing tool never passes silently.
 */
export function reportSkip(reason: string): void {
  console.warn(`skipped: ${reason}`);
  const file = process.env.TOOLCOACH_SKIP_REPORT;
  if (file) appendFileSync(file, `${reason}\n`);
}
