const DAY_MS = 86_400_000;

/** Midnight UTC of a YYYY-MM-DD string, or null when it is not a real calendar day. */
export function parseDay(value: string): Date | null {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return null;
  const day = new Date(`${value}T00:00:00.000Z`);
  return !Number.isNaN(day.getTime()) && day.toISOString().startsWith(value) ? day : null;
}

/** The UTC day before `now`: what a run at night computes. */
export function previousDay(now: Date): Date {
  return new Date(Math.floor(now.getTime() / DAY_MS) * DAY_MS - DAY_MS);
}

export function formatDay(day: Date): string {
  return day.toISOString().slice(0, 10);
}
