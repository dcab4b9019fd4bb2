import { createHash } from 'node:crypto';
import { encodeCursor } from '../../infra/http/cursor';
import { MAX_PAGE_BYTES } from '../../infra/http/page-bytes';
import type { ToolFormat } from '../registry.types';
import type { ToolQualityReport } from '../quality/tool-quality.types';

// `GET /v1/tools` in pages (issue 33: a project of 1,000 large tools answered 12 MB at once). The whole list is built
// once per project, format and served variant and kept serialized tool by tool; a page is cut from it by name, at most
// `limit` tools and MAX_PAGE_BYTES of JSON. Every page carries the ETag of the whole list, so a client that polls the
// first page with If-None-Match learns in one 304 that no page changed.

/** One tool of a served list: its JSON in the list's shape and its quality report's, ready to be joined into pages. */
interface ListedToolJson {
  name: string;
  json: string;
  /** Empty when the tool has no report. */
  qualityJson: string;
  /** Its place in the project's quality list (worst score first), so each page lists its tools' reports in that order. */
  qualityRank: number;
  bytes: number;
}

export interface ServedToolList {
  etag: string;
  format: ToolFormat;
  /** Ordered by name in code-unit order: the order the cursor walks, whatever Postgres's collation is. */
  tools: ListedToolJson[];
  notesJson: string;
}

export interface ToolListPageQuery {
  /** The name the previous page ended with (from its cursor): this page starts after it. */
  after?: string;
  limit: number;
  /** Only these tools, when given. */
  names?: ReadonlySet<string>;
}

/** `tools` in the list's shape, each beside its name; `quality` of the same tools, worst score first. */
export function buildToolList(
  format: ToolFormat,
  tools: ReadonlyArray<{ name: string; listed: unknown }>,
  quality: readonly ToolQualityReport[],
  notes: unknown,
): ServedToolList {
  const rankOf = new Map(quality.map((report, rank) => [report.tool, rank]));
  const qualityOf = new Map(quality.map((report) => [report.tool, report]));
  const listed = tools
    .map(({ name, listed }) => {
      const json = JSON.stringify(listed);
      const report = qualityOf.get(name);
      const qualityJson = report ? JSON.stringify(report) : '';
      return {
        name,
        json,
        qualityJson,
        qualityRank: rankOf.get(name) ?? quality.length,
        bytes: Buffer.byteLength(json) + Buffer.byteLength(qualityJson) + 2,
      };
    })
    .sort((a, b) => compareNames(a.name, b.name));
  const notesJson = JSON.stringify(notes);
  const hash = createHash('sha256').update(`${format}\n${notesJson}\n`);
  for (const tool of listed) hash.update(`${tool.json}\n${tool.qualityJson}\n`);
  return { etag: `"${hash.digest('base64url')}"`, format, tools: listed, notesJson };
}

/**
 * The body of one page: `{format, tools, notes, quality, nextCursor}`, at most `limit` tools and MAX_PAGE_BYTES of JSON
 * (notes included; always at least one tool, so a page is never empty while tools remain).
 */
export function toolListPage(list: ServedToolList, query: ToolListPageQuery, maxBytes = MAX_PAGE_BYTES): string {
  const page: ListedToolJson[] = [];
  let bytes = Buffer.byteLength(list.notesJson);
  let index = query.after === undefined ? 0 : firstIndexAfter(list.tools, query.after);
  let hasMore = false;
  for (; index < list.tools.length; index++) {
    const tool = list.tools[index];
    if (query.names && !query.names.has(tool.name)) continue;
    if (page.length === query.limit || (page.length > 0 && bytes + tool.bytes > maxBytes)) {
      hasMore = true;
      break;
    }
    page.push(tool);
    bytes += tool.bytes;
  }
  const quality = page.filter((tool) => tool.qualityJson !== '').sort((a, b) => a.qualityRank - b.qualityRank);
  const nextCursor = hasMore ? encodeCursor([page[page.length - 1].name]) : null;
  return (
    `{"format":${JSON.stringify(list.format)},"tools":[${page.map((tool) => tool.json).join(',')}],"notes":${list.notesJson},` +
    `"quality":[${quality.map((tool) => tool.qualityJson).join(',')}],"nextCursor":${JSON.stringify(nextCursor)}}`
  );
}

function firstIndexAfter(tools: readonly ListedToolJson[], name: string): number {
  let low = 0;
  let high = tools.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (compareNames(tools[middle].name, name) <= 0) low = middle + 1;
    else high = middle;
  }
  return low;
}

function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
