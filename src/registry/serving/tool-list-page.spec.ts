import { decodeCursor } from '../../infra/http/cursor';
import { ApiError } from '../../infra/http/api-error';
import { readListQuery } from '../registry.schemas';
import { buildToolList, ServedToolList, ToolListPageQuery, toolListPage } from './tool-list-page';

const report = (tool: string, score: number) => ({ tool, score, findings: [] });

/** Tools named by `names`, each with a description of `descriptionChars`, quality scores in the order given. */
function listOf(names: string[], descriptionChars = 10): ServedToolList {
  const tools = names.map((name) => ({ name, listed: { name, description: 'd'.repeat(descriptionChars) } }));
  return buildToolList('raw', tools, names.map((name, i) => report(name, 100 - i)).reverse(), [{ kind: 'note' }]);
}

function pageOf(list: ServedToolList, query: Partial<ToolListPageQuery>, maxBytes?: number) {
  return JSON.parse(toolListPage(list, { limit: 1000, ...query }, maxBytes)) as {
    tools: Array<{ name: string }>;
    quality: Array<{ tool: string }>;
    notes: unknown[];
    nextCursor: string | null;
  };
}

function walk(list: ServedToolList, query: Partial<ToolListPageQuery>, maxBytes?: number): string[][] {
  const pages: string[][] = [];
  let after: string | undefined;
  for (;;) {
    const page = pageOf(list, { ...query, after }, maxBytes);
    pages.push(page.tools.map((tool) => tool.name));
    if (page.nextCursor === null) return pages;
    after = (decodeCursor(page.nextCursor) as string[])[0];
  }
}

describe('tool list pages', () => {
  const names = ['b', 'A', 'a.2', 'a-1', 'c_3', 'Z'];

  it('answers every tool by name in code-unit order on one page, with notes and quality worst first, and no cursor', () => {
    const page = pageOf(listOf(names), {});
    expect(page.tools.map((tool) => tool.name)).toEqual(['A', 'Z', 'a-1', 'a.2', 'b', 'c_3']);
    expect(page.quality.map((quality) => quality.tool)).toEqual([...names].reverse());
    expect(page.notes).toEqual([{ kind: 'note' }]);
    expect(page.nextCursor).toBeNull();
  });

  it('cuts pages of `limit` tools whose cursors reach every tool once, each page with its own tools quality', () => {
    const pages = walk(listOf(names), { limit: 4 });
    expect(pages).toEqual([
      ['A', 'Z', 'a-1', 'a.2'],
      ['b', 'c_3'],
    ]);
    expect(pageOf(listOf(names), { limit: 4, after: 'a.2' }).quality.map((q) => q.tool)).toEqual(['c_3', 'b']);
  });

  it('ends a page at the byte bound, never with zero tools, and reaches every tool', () => {
    const many = Array.from({ length: 50 }, (_, i) => `tool_${String(i).padStart(2, '0')}`);
    const list = listOf(many, 1000);
    const pages = walk(list, {}, 5000);
    expect(pages.flat()).toEqual(many);
    expect(pages.length).toBeGreaterThan(10);
    for (const page of pages) expect(page.length).toBeGreaterThan(0);
    for (let i = 0; i < pages.length; i++) {
      const after = i === 0 ? undefined : pages[i - 1][pages[i - 1].length - 1];
      expect(Buffer.byteLength(toolListPage(list, { limit: 1000, after }, 5000))).toBeLessThanOrEqual(5000 + 200);
    }
    // one tool larger than the bound is answered alone
    expect(walk(listOf(['x', 'y'], 10_000), {}, 5000)).toEqual([['x'], ['y']]);
  });

  it('filters by names, pages the filtered tools, and leaves unknown names out', () => {
    const list = listOf(names);
    expect(walk(list, { names: new Set(['b', 'Z', 'missing', 'a-1']), limit: 2 })).toEqual([['Z', 'a-1'], ['b']]);
    expect(pageOf(list, { names: new Set(['missing']) })).toMatchObject({ tools: [], quality: [], nextCursor: null });
  });

  it('starts after a name whether or not the list holds it (a tool archived between pages)', () => {
    expect(pageOf(listOf(names), { after: 'a.1' }).tools.map((tool) => tool.name)).toEqual(['a.2', 'b', 'c_3']);
    expect(pageOf(listOf(names), { after: 'zzz' }).tools).toEqual([]);
  });

  it('gives the whole list one ETag that changes with any tool, note or quality, whatever the order tools came in', () => {
    const list = listOf(names);
    expect(listOf([...names].reverse()).etag).not.toBe(list.etag);
    expect(buildToolList('raw', [], [], []).etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    const tools = names.map((name) => ({ name, listed: { name } }));
    const quality = names.map((name) => report(name, 50));
    const etag = buildToolList('raw', tools, quality, []).etag;
    expect(buildToolList('raw', [...tools].reverse(), quality, []).etag).toBe(etag);
    expect(buildToolList('openai', tools, quality, []).etag).not.toBe(etag);
    expect(buildToolList('raw', tools, quality, [{ kind: 'x' }]).etag).not.toBe(etag);
    expect(buildToolList('raw', [...tools.slice(1), { name: 'b', listed: { name: 'b', x: 1 } }], quality, []).etag).not.toBe(etag);
    expect(buildToolList('raw', tools, [report('b', 49), ...quality.slice(1)], []).etag).not.toBe(etag);
  });
});

describe('readListQuery', () => {
  const refusal = (query: Record<string, string>) => {
    try {
      readListQuery(query);
    } catch (error) {
      return { status: (error as ApiError).status, details: (error as ApiError).options.details };
    }
    return undefined;
  };
  const cursorOf = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');

  it('reads the page asked for, with defaults an old client gets', () => {
    expect(readListQuery({})).toEqual({ format: 'raw', page: { limit: 1000 } });
    expect(readListQuery({ format: 'mcp', limit: '2', names: 'a,b.c', cursor: cursorOf(['a-1']) })).toEqual({
      format: 'mcp',
      page: { after: 'a-1', limit: 2, names: new Set(['a', 'b.c']) },
    });
  });

  it.each([
    ['not base64', '!!!'],
    ['not JSON', Buffer.from('{"x').toString('base64url')],
    ['another shape', cursorOf({ name: 'a' })],
    ['a number', cursorOf([1])],
    ['not a tool name', cursorOf(['a b'])],
    ['a name too long', cursorOf(['x'.repeat(201)])],
    ['two names', cursorOf(['a', 'b'])],
  ])('refuses a forged cursor (%s) with 400 naming /query/cursor', (_kind, cursor) => {
    expect(refusal({ cursor })).toEqual({ status: 400, details: [{ path: '/query/cursor', message: expect.any(String) }] });
  });

  it.each([
    ['a limit of 0', { limit: '0' }, '/query/limit'],
    ['a limit past 1000', { limit: '1001' }, '/query/limit'],
    ['an empty name', { names: 'a,,b' }, '/query/names'],
    ['a name with a blank', { names: 'a b' }, '/query/names'],
    ['a name of 201 characters', { names: 'x'.repeat(201) }, '/query/names'],
  ])('refuses %s with 400 naming %s', (_kind, query, path) => {
    expect(refusal(query)?.details?.[0].path).toBe(path);
  });
});
