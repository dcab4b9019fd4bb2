import { randomUUID } from 'node:crypto';

/** A valid event with defaults; tests override only what they assert on. */
export function anEvent(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: `evt-${randomUUID()}`,
    tool: 'get_weather',
    status: 'success',
    arguments: { city: 'Paris' },
    result: { tempC: 21 },
    durationMs: 12.5,
    ...overrides,
  };
}

export function anErrorEvent(message: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return anEvent({ status: 'error', result: undefined, error: { type: 'Error', message }, ...overrides });
}
