import { combineToolLists } from '../src/combined-tools';

const tool = (name: string, description = `${name} tool`) => ({ name, description, inputSchema: { type: 'object', properties: {} } });

describe('combineToolLists', () => {
  const lists = [
    { upstream: 'math', tools: [tool('factorial'), tool('search', 'search numbers')] },
    { upstream: 'docs', tools: [tool('search', 'search documents'), tool('read')] },
  ];

  it('serves <upstream>__<tool> when prefixing, every field but the name unchanged, each routed to its own tool', () => {
    const combined = combineToolLists(lists, true);
    expect(combined.tools.map((t) => t.name)).toEqual(['math__factorial', 'math__search', 'docs__search', 'docs__read']);
    expect(combined.tools[2]).toEqual({ ...tool('search', 'search documents'), name: 'docs__search' });
    expect(combined.routes.get('docs__search')).toEqual({ upstream: 'docs', tool: 'search' });
    expect(combined.shadowed).toEqual([]);
  });

  it('keeps the names when not prefixing; a name two upstreams list is served from the first and reported', () => {
    const combined = combineToolLists(lists, false);
    expect(combined.tools.map((t) => [t.name, t.description])).toEqual([
      ['factorial', 'factorial tool'],
      ['search', 'search numbers'],
      ['read', 'read tool'],
    ]);
    expect(combined.routes.get('search')).toEqual({ upstream: 'math', tool: 'search' });
    expect(combined.shadowed).toEqual([{ name: 'search', upstreams: ['math', 'docs'] }]);
  });
});
