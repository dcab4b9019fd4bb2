/** Requests of one project that may wait for their turn to check schemas; past it, 429 (see RegistrationTurns). */
export const MAX_WAITING_REGISTRATIONS_PER_PROJECT = 8;

/**
 * Each project checks one registration request at a time, the others wait in line (at most
 * MAX_WAITING_REGISTRATIONS_PER_PROJECT): a project sending many expensive registrations at once gets one share of the
 * event loop beside every other request, not one share per request. Per process, like the event loop it protects.
 */
export class RegistrationTurns {
  private readonly lines = new Map<string, Array<() => void>>();

  constructor(private readonly maxWaiting: number = MAX_WAITING_REGISTRATIONS_PER_PROJECT) {}

  /** Runs `work` in the project's turn; null, without running it, when too many of the project's requests wait already. */
  async run<T>(projectId: string, work: () => Promise<T>): Promise<{ value: T } | null> {
    const line = this.lines.get(projectId);
    if (line && line.length > this.maxWaiting) return null;
    if (line) await new Promise<void>((resolve) => line.push(resolve));
    else this.lines.set(projectId, [() => undefined]);
    try {
      return { value: await work() };
    } finally {
      this.passTurn(projectId);
    }
  }

  /** The line's head is the request running; the next one starts, or the line is gone. */
  private passTurn(projectId: string): void {
    const line = this.lines.get(projectId)!;
    line.shift();
    if (line.length === 0) this.lines.delete(projectId);
    else line[0]();
  }
}
