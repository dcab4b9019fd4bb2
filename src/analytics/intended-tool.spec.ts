import { compactSimilarity, editDistance, findIntendedTool, MATCH_THRESHOLD, wordsOf } from './intended-tool';

const TOOLS = [
  'prime_factorization',
  'factorial',
  'get_weather',
  'search_docs',
  'calculate_sum',
  'create_user',
  'send_invoice',
  'convertCurrency',
  'list_orders',
  'translate_text',
];

const noSessions = { nextCalls: new Map<string, number>(), sampledCalls: 0 };
const intended = (calledName: string, registeredTools = TOOLS) =>
  findIntendedTool({ calledName, registeredTools, ...noSessions })?.tool ?? null;

describe('findIntendedTool', () => {
  it.each([
    ['prime_factorise', 'prime_factorization'],
    ['prime_factorisation', 'prime_factorization'],
    ['primeFactorization', 'prime_factorization'],
    ['PrimeFactorization', 'prime_factorization'],
    ['prime-factorization', 'prime_factorization'],
    ['prime.factorization', 'prime_factorization'],
    ['prime_factorizations', 'prime_factorization'],
    ['prime_factorizaton', 'prime_factorization'],
    ['factorials', 'factorial'],
    ['factorial_tool', 'factorial'],
    ['getWeather', 'get_weather'],
    ['get_wether', 'get_weather'],
    ['weather', 'get_weather'],
    ['fetch_weather', 'get_weather'],
    ['search_doc', 'search_docs'],
    ['searchDocs', 'search_docs'],
    ['search_documents', 'search_docs'],
    ['calc_sum', 'calculate_sum'],
    ['calculateSum', 'calculate_sum'],
    ['convert_currency', 'convertCurrency'],
    ['currency_convert', 'convertCurrency'],
    ['get_orders', 'list_orders'],
    ['translate', 'translate_text'],
    ['send_invoices', 'send_invoice'],
  ])('%s was meant as %s', (called, tool) => {
    expect(intended(called)).toBe(tool);
  });

  it.each([
    'delete_user',
    'send_email',
    'book_flight',
    'x',
    'run',
    'get_stock_price',
    'summarize',
    'tool_42',
    'weather_alerts_for_region_and_country',
  ])('claims no tool for %s, which is like none of them', (called) => {
    expect(intended(called)).toBeNull();
  });

  it('never matches the called name itself, nor anything in an empty project', () => {
    expect(intended('get_weather', ['get_weather'])).toBeNull();
    expect(intended('get_weather', [])).toBeNull();
  });

  it('claims nothing when two tools are equally close', () => {
    expect(intended('weather', ['get_weather', 'fetch_weather'])).toBeNull();
    expect(intended('user', ['create_user', 'update_user'])).toBeNull();
  });

  it('lets what the session called next decide between close names, and lift a middling name over the threshold', () => {
    const sessions = (tool: string, count: number) => ({ nextCalls: new Map([[tool, count]]), sampledCalls: 5 });
    expect(
      findIntendedTool({ calledName: 'user', registeredTools: ['create_user', 'update_user'], ...sessions('update_user', 5) })?.tool,
    ).toBe('update_user');
    const middling = findIntendedTool({ calledName: 'lookup_docs', registeredTools: ['search_docs'], ...noSessions });
    expect(middling).toBeNull();
    const lifted = findIntendedTool({ calledName: 'lookup_docs', registeredTools: ['search_docs'], ...sessions('search_docs', 5) });
    expect(lifted).toMatchObject({ tool: 'search_docs', nextCallShare: 1 });
    expect(lifted!.score).toBeGreaterThanOrEqual(MATCH_THRESHOLD);
  });

  it('never lets the next call alone name an unrelated tool', () => {
    expect(
      findIntendedTool({
        calledName: 'send_email',
        registeredTools: ['get_weather'],
        nextCalls: new Map([['get_weather', 5]]),
        sampledCalls: 5,
      }),
    ).toBeNull();
  });

  it('reports the parts of its score', () => {
    expect(findIntendedTool({ calledName: 'prime_factorise', registeredTools: TOOLS, ...noSessions })).toMatchObject({
      tool: 'prime_factorization',
      sharedWords: 1,
      nextCallShare: 0,
    });
  });

  it('stays fast and bounded for very long names', () => {
    const long = 'a'.repeat(200);
    const started = Date.now();
    expect(intended(long, [...TOOLS, 'b'.repeat(200)])).toBeNull();
    expect(Date.now() - started).toBeLessThan(200);
  });
});

describe('the parts', () => {
  it('splits names into stemmed words', () => {
    expect(wordsOf('getWeatherForecast2')).toEqual(['get', 'weather', 'forecast', '2']);
    expect(wordsOf('HTTPRequest_items')).toEqual(['http', 'request', 'item']);
    expect(wordsOf('prime_factorise')).toEqual(['prime', 'factorize']);
    expect(wordsOf('--')).toEqual([]);
  });

  it('measures edit distance and compact similarity', () => {
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('', 'abc')).toBe(3);
    expect(compactSimilarity('get_weather', 'getWeather')).toBe(1);
    expect(compactSimilarity('abc', 'xyz')).toBe(0);
  });
});
