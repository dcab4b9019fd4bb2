import { Injectable } from '@nestjs/common';
import { EventFilter, EventQueries, EventRecord } from './event.queries';

/** Rows read per query: what an export holds in memory at once, whatever its length. */
const EXPORT_PAGE_ROWS = 500;

/** One line of GET /v1/events/export: a call as a dataset row for offline evaluation or fine-tuning. */
export interface ExportLine {
  id: string;
  occurredAt: string;
  tool: string;
  /** The description (schema) version the agent saw, as it reported it. */
  schemaVersion: number | null;
  agent: string | null;
  model: string | null;
  arguments: unknown;
  status: string;
  error: { type: string | null; message: string } | null;
  category: string | null;
  subtype: string | null;
  argumentPath: string | null;
  /** The active warning about this argument (what agents are now told), or null when none is known. */
  fix: { warningText: string } | null;
}

/** Streams a project's matching events as JSON lines, page by page: memory stays one page whatever the row cap. */
@Injectable()
export class EventExportService {
  constructor(private readonly events: EventQueries) {}

  async *exportLines(projectId: string, filter: EventFilter): AsyncGenerator<string> {
    const fixes = new Map<string, Promise<Map<string, string>>>();
    const fixesOf = (tool: string) => {
      let found = fixes.get(tool);
      if (!found) fixes.set(tool, (found = this.warningTextsByPath(projectId, tool)));
      return found;
    };
    let remaining = filter.limit;
    let after = filter.after;
    while (remaining > 0) {
      const page = await this.events.listEvents(projectId, { ...filter, after, limit: Math.min(EXPORT_PAGE_ROWS, remaining) });
      for (const event of page) yield JSON.stringify(toExportLine(event, await fixesOf(event.tool))) + '\n';
      remaining -= page.length;
      const last = page[page.length - 1];
      if (!last || page.length < EXPORT_PAGE_ROWS) return;
      after = { occurredAt: last.occurredAt, id: last.id };
    }
  }

  /** Argument path -> the text of the tool's first active warning about it (evidence key "kind:/path"). */
  private async warningTextsByPath(projectId: string, tool: string): Promise<Map<string, string>> {
    const byPath = new Map<string, string>();
    for (const warning of await this.events.findActiveWarnings(projectId, tool)) {
      const path = warning.evidenceKey?.slice(warning.evidenceKey.indexOf(':') + 1);
      if (path && !byPath.has(path)) byPath.set(path, warning.text);
    }
    return byPath;
  }
}

function toExportLine(event: EventRecord, warningTexts: ReadonlyMap<string, string>): ExportLine {
  const warningText = event.argumentPath === null ? undefined : warningTexts.get(event.argumentPath);
  return {
    id: event.id,
    occurredAt: event.occurredAt.toISOString(),
    tool: event.tool,
    schemaVersion: event.descriptionVersion,
    agent: event.agent,
    model: event.model,
    arguments: event.arguments,
    status: event.status,
    error: event.errorMessage === null ? null : { type: event.errorType, message: event.errorMessage },
    category: event.category,
    subtype: event.subtype,
    argumentPath: event.argumentPath,
    fix: warningText === undefined ? null : { warningText },
  };
}
