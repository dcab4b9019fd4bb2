import { cacheKey, LIST_KEY, ServedResponseCache } from './served-response.cache';

const entry = (body: string) => ({ body, etag: `"${body}"` });

describe('ServedResponseCache', () => {
  it('drops every entry of a changed tool and its project lists, and nothing else', () => {
    const cache = new ServedResponseCache(100);
    const generation = cache.currentGeneration;
    cache.set(cacheKey('p1', 'add', 'latest', 'raw'), entry('a'), generation);
    cache.set(cacheKey('p1', 'add', 3, 'raw'), entry('b'), generation);
    cache.set(cacheKey('p1', LIST_KEY, 'latest', 'openai'), entry('c'), generation);
    cache.set(cacheKey('p1', 'add_more', 'latest', 'raw'), entry('d'), generation);
    cache.set(cacheKey('p2', 'add', 'latest', 'raw'), entry('e'), generation);
    cache.invalidateTool('p1', 'add');
    expect(cache.get(cacheKey('p1', 'add', 'latest', 'raw'))).toBeUndefined();
    expect(cache.get(cacheKey('p1', 'add', 3, 'raw'))).toBeUndefined();
    expect(cache.get(cacheKey('p1', LIST_KEY, 'latest', 'openai'))).toBeUndefined();
    expect(cache.get(cacheKey('p1', 'add_more', 'latest', 'raw'))).toEqual(entry('d'));
    expect(cache.get(cacheKey('p2', 'add', 'latest', 'raw'))).toEqual(entry('e'));
  });

  it('refuses to store a value loaded before an invalidation', () => {
    const cache = new ServedResponseCache(100);
    const generation = cache.currentGeneration;
    cache.invalidateTool('p1', 'add');
    cache.set(cacheKey('p1', 'add', 'latest', 'raw'), entry('stale'), generation);
    expect(cache.size).toBe(0);
  });

  it('evicts the least recently used entry beyond its bound', () => {
    const cache = new ServedResponseCache(2);
    cache.set('a', entry('a'), 0);
    cache.set('b', entry('b'), 0);
    cache.get('a');
    cache.set('c', entry('c'), 0);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toEqual(entry('a'));
    expect(cache.size).toBe(2);
  });

  it('never evicts an entry read at least once every half of its bound, however many others come', () => {
    const cache = new ServedResponseCache(8);
    cache.set('hot', entry('hot'), 0);
    for (let index = 0; index < 200; index++) {
      cache.set(`cold-${index}`, entry(`cold-${index}`), 0);
      if (index % 2 === 0) expect(cache.get('hot')).toEqual(entry('hot'));
    }
    expect(cache.size).toBe(8);
    expect(cache.get('cold-0')).toBeUndefined();
    expect(cache.get('cold-199')).toEqual(entry('cold-199'));
  });
});
