/** Where the SDK writes its few warnings; `console` by default. */
export interface Logger {
  warn(message: string): void;
}

/** Says each kind of problem once, so a server that stays down does not flood the agent's log. */
export class OnceLogger {
  private readonly said = new Set<string>();

  constructor(private readonly logger: Logger) {}

  warn(kind: string, message: string): void {
    if (this.said.has(kind)) return;
    this.said.add(kind);
    try {
      this.logger.warn(message);
    } catch {
      // A broken logger must not break the agent.
    }
  }
}
