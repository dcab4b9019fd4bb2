import {
  CONFUSION_WINDOW_MS,
  countConfusions,
  findSessionConfusions,
  isEmptyAnswer,
  SessionCall,
  sharedArgumentNames,
} from './tool-confusion';

const REGISTERED = new Set(['search_orders', 'get_order', 'list_customers']);
const T0 = Date.parse('2026-03-01T08:00:00Z');

let nextId = 0;
function call(tool: string, at: number, fields: Partial<SessionCall> = {}): SessionCall {
  return {
    id: `e${nextId++}`,
    tool,
    sessionId: 's1',
    occurredAt: new Date(T0 + at),
    isSuccess: true,
    descriptionVersion: 1,
    arguments: { order_id: 'A-1001' },
    result: { id: 'A-1001', status: 'shipped' },
    ...fields,
  };
}

describe('findSessionConfusions', () => {
  it('finds search_orders taken for get_order when its empty answer is followed by get_order with the same order_id', () => {
    const calls = [call('search_orders', 0, { result: { orders: [], total: 0 } }), call('get_order', 5000)];
    expect(findSessionConfusions(calls, REGISTERED)).toEqual([
      expect.objectContaining({
        tool: 'search_orders',
        confusedWith: 'get_order',
        reason: 'empty',
        sharedArguments: ['order_id'],
        version: 1,
      }),
    ]);
  });

  it('counts an error answer, and a matching argument name (orderId for order_id)', () => {
    const calls = [
      call('search_orders', 0, { isSuccess: false, result: undefined }),
      call('get_order', 1000, { arguments: { orderId: 'A-1001' } }),
    ];
    expect(findSessionConfusions(calls, REGISTERED)).toEqual([expect.objectContaining({ reason: 'error', sharedArguments: ['orderId'] })]);
  });

  it('counts a useful answer the next call ignored as discarded, but not one the next call built on', () => {
    const discarded = [call('search_orders', 0, { result: [{ id: 'A-1001' }] }), call('get_order', 1000)];
    expect(findSessionConfusions(discarded, REGISTERED)).toEqual([expect.objectContaining({ reason: 'discarded' })]);
    const builtOn = [
      call('search_orders', 0, { arguments: { order_id: 'A-1001', customer: 'ada' }, result: [{ customer: 'ada', invoice: 'INV-7' }] }),
      call('get_order', 1000, { arguments: { order_id: 'A-1001', invoice: 'INV-7' } }),
    ];
    expect(findSessionConfusions(builtOn, REGISTERED)).toEqual([]);
  });

  it('needs overlapping values, a successful second call, another registered tool and the window', () => {
    const empty = { result: [] };
    expect(
      findSessionConfusions([call('search_orders', 0, empty), call('get_order', 1000, { arguments: { order_id: 'B-2' } })], REGISTERED),
    ).toEqual([]);
    expect(findSessionConfusions([call('search_orders', 0, empty), call('get_order', 1000, { isSuccess: false })], REGISTERED)).toEqual([]);
    expect(findSessionConfusions([call('search_orders', 0, empty), call('search_orders', 1000)], REGISTERED)).toEqual([]);
    expect(findSessionConfusions([call('search_orders', 0, empty), call('get_ordr', 1000)], REGISTERED)).toEqual([]);
    expect(findSessionConfusions([call('search_orders', 0, empty), call('get_order', CONFUSION_WINDOW_MS + 1)], REGISTERED)).toEqual([]);
    // booleans and small flags say nothing about meaning the same thing
    expect(
      findSessionConfusions(
        [call('search_orders', 0, { ...empty, arguments: { exact: true } }), call('get_order', 1000, { arguments: { exact: true } })],
        REGISTERED,
      ),
    ).toEqual([]);
  });

  it('looks at most two calls ahead', () => {
    const between = [call('list_customers', 1000, { arguments: { q: 'x' } }), call('list_customers', 2000, { arguments: { q: 'y' } })];
    const near = [call('search_orders', 0, { result: [] }), ...between.slice(0, 2), call('get_order', 3000)];
    expect(findSessionConfusions(near, REGISTERED)).toHaveLength(1);
    const far = [
      call('search_orders', 0, { result: [] }),
      ...between,
      call('list_customers', 2500, { arguments: { q: 'z' } }),
      call('get_order', 3000),
    ];
    expect(findSessionConfusions(far, REGISTERED)).toEqual([]);
  });
});

describe('isEmptyAnswer', () => {
  it.each([
    [null],
    [''],
    ['  '],
    ['[]'],
    [[]],
    [{}],
    [{ orders: [], total: 0 }],
    [{ found: false, items: null }],
    ['{"orders": [], "total": 0}'],
    ['No orders found.'],
    ['0 results'],
    ['Not found'],
  ])('%j is empty', (value) => {
    expect(isEmptyAnswer(value)).toBe(true);
  });
  it.each([
    [undefined],
    [0],
    ['no'],
    ['No orders for this customer were shipped late, all good'],
    ['{"orders": [1]}'],
    ['{broken'],
    [[1]],
    [{ total: 3 }],
    [{ order: { id: 1 } }],
  ])('%j is not empty', (value) => {
    expect(isEmptyAnswer(value)).toBe(false);
  });
});

describe('sharedArgumentNames', () => {
  it('compares strings and numbers under the same or a matching name, top level only', () => {
    expect(sharedArgumentNames({ order_id: 7, note: 'x' }, { order_ids: 7, note: 'y' })).toEqual(['order_ids']);
    expect(sharedArgumentNames({ filter: { id: 7 } }, { filter: { id: 7 } })).toEqual([]);
    expect(sharedArgumentNames('7', { id: 7 })).toEqual([]);
  });
});

describe('countConfusions', () => {
  const session = (id: string, calls: SessionCall[]) => [id, calls.map((c) => ({ ...c, sessionId: id }))] as const;

  it('counts per pair and version of the first tool against the sessions that called either, by their own or the nearest version', () => {
    const sessions = new Map([
      session('confused', [call('search_orders', 0, { result: [] }), call('get_order', 1000)]),
      // went straight to get_order: counted at the version of the nearest call of search_orders (version 2 at 60 s)
      session('straight', [call('get_order', 50_000, { descriptionVersion: 5 })]),
      session('searched', [call('search_orders', 60_000, { descriptionVersion: 2, arguments: { customer: 'ada' } })]),
      session('unrelated', [call('list_customers', 0, { arguments: { q: 'a' } })]),
    ]);
    const { counts } = countConfusions(sessions, REGISTERED, []);
    expect(counts).toEqual([
      {
        tool: 'search_orders',
        confusedWith: 'get_order',
        descriptionVersion: 1,
        confusions: 1,
        confusedSessions: 1,
        sessions: 1,
        exampleSessionIds: ['confused'],
      },
      {
        tool: 'search_orders',
        confusedWith: 'get_order',
        descriptionVersion: 2,
        confusions: 0,
        confusedSessions: 0,
        sessions: 2,
        exampleSessionIds: [],
      },
    ]);
  });

  it('keeps the denominator of a tracked pair on a day without a confusion, at version 0 when the day has no call of the tool', () => {
    const sessions = new Map([session('a', [call('get_order', 0)]), session('b', [call('get_order', 1000)])]);
    const { counts } = countConfusions(sessions, REGISTERED, [{ tool: 'search_orders', confusedWith: 'get_order' }]);
    expect(counts).toEqual([
      {
        tool: 'search_orders',
        confusedWith: 'get_order',
        descriptionVersion: 0,
        confusions: 0,
        confusedSessions: 0,
        sessions: 2,
        exampleSessionIds: [],
      },
    ]);
  });
});
