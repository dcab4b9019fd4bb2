// Realistic tool-call traffic: a few tools take most calls (Zipf), error rates differ per tool, and errors follow the
// mix agents really produce (wrong argument names, out-of-range values, unknown tools, timeouts, runtime errors).

/** Deterministic PRNG (mulberry32), so every run and machine sends the same traffic. */
export function random(seed = 42) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const TOOLS = [
  {
    name: 'search_docs',
    errorRate: 0.04,
    args: (r) => ({ query: pick(r, QUERIES), limit: 1 + Math.floor(r() * 20) }),
    parameters: {
      type: 'object',
      properties: { query: { type: 'string' }, limit: { type: 'integer', minimum: 1, maximum: 50 } },
      required: ['query'],
      additionalProperties: false,
    },
  },
  {
    name: 'get_weather',
    errorRate: 0.08,
    args: (r) => ({ city: pick(r, CITIES), units: r() < 0.8 ? 'metric' : 'imperial' }),
    parameters: {
      type: 'object',
      properties: { city: { type: 'string' }, units: { enum: ['metric', 'imperial'] } },
      required: ['city'],
      additionalProperties: false,
    },
  },
  {
    name: 'prime_factors',
    errorRate: 0.3,
    args: (r) => ({ number: Math.floor(r() * 100000) }),
    parameters: {
      type: 'object',
      properties: { number: { type: 'integer', maximum: 1000000 } },
      required: ['number'],
      additionalProperties: false,
    },
  },
  {
    name: 'run_sql',
    errorRate: 0.15,
    args: (r) => ({ sql: `select * from orders where id = ${Math.floor(r() * 1e6)}`, timeout_s: 30 }),
    parameters: {
      type: 'object',
      properties: { sql: { type: 'string' }, timeout_s: { type: 'integer', maximum: 60 } },
      required: ['sql'],
      additionalProperties: false,
    },
  },
  {
    name: 'send_email',
    errorRate: 0.1,
    args: (r) => ({ to: `user${Math.floor(r() * 1000)}@example.com`, subject: 'Your order', body: 'Hello' }),
    parameters: {
      type: 'object',
      properties: { to: { type: 'string' }, subject: { type: 'string' }, body: { type: 'string' } },
      required: ['to', 'subject'],
      additionalProperties: false,
    },
  },
  {
    name: 'create_ticket',
    errorRate: 0.12,
    args: (r) => ({ title: 'Login fails', priority: 1 + Math.floor(r() * 5) }),
    parameters: {
      type: 'object',
      properties: { title: { type: 'string' }, priority: { type: 'integer', minimum: 1, maximum: 4 } },
      required: ['title'],
      additionalProperties: false,
    },
  },
  {
    name: 'fetch_url',
    errorRate: 0.2,
    args: (r) => ({ url: `https://example.com/page/${Math.floor(r() * 500)}` }),
    parameters: { type: 'object', properties: { url: { type: 'string' } }, required: ['url'], additionalProperties: false },
  },
  {
    name: 'calendar_lookup',
    errorRate: 0.05,
    args: (r) => ({ date: '2026-11-20', days: 1 + Math.floor(r() * 14) }),
    parameters: {
      type: 'object',
      properties: { date: { type: 'string' }, days: { type: 'integer', maximum: 31 } },
      required: ['date'],
      additionalProperties: false,
    },
  },
];
for (let i = 0; i < 22; i++) {
  TOOLS.push({
    name: `internal_tool_${i}`,
    errorRate: 0.02 + (i % 5) * 0.03,
    args: (r) => ({ id: Math.floor(r() * 10000), verbose: r() < 0.1 }),
    parameters: {
      type: 'object',
      properties: { id: { type: 'integer' }, verbose: { type: 'boolean' } },
      required: ['id'],
      additionalProperties: false,
    },
  });
}

const QUERIES = ['reset password', 'refund policy', 'api rate limits', 'sso setup', 'billing address', 'export csv'];
const CITIES = ['Paris', 'Berlin', 'Tokyo', 'Lagos', 'Lima', 'Oslo', 'Pune', 'Austin'];
const MODELS = ['gpt-4.1', 'gpt-4.1-mini', 'claude-sonnet-4', 'gemini-2.5-pro'];
const AGENTS = ['support-agent', 'math-agent', 'ops-agent'];

// Zipf(s=1.1) over the tools: the first takes ~25% of calls, the long tail a fraction of a percent each.
const WEIGHTS = TOOLS.map((_, i) => 1 / Math.pow(i + 1, 1.1));
const CUMULATIVE = WEIGHTS.map(
  (
    (sum) => (w) =>
      (sum += w)
  )(0),
).map((c, _, all) => c / all[all.length - 1]);

export function pickTool(r) {
  const x = r();
  const index = CUMULATIVE.findIndex((c) => x <= c);
  return TOOLS[index === -1 ? TOOLS.length - 1 : index];
}

function pick(r, list) {
  return list[Math.floor(r() * list.length)];
}

/** Error shapes agents produce, weighted; each returns {type, message} worded as the real libraries word them. */
const ERRORS = [
  [0.3, (tool) => ({ type: 'TypeError', message: `${tool.name}() got an unexpected keyword argument 'numbers'` })],
  [
    0.15,
    (tool) => ({
      type: 'ValidationError',
      message: `1 validation error for ${tool.name}\nlimit\n  Input should be less than or equal to 50 [type=less_than_equal, input_value=120, input_type=int]`,
    }),
  ],
  [0.1, (tool) => ({ type: 'KeyError', message: `missing required argument 'query' for ${tool.name}` })],
  [0.1, () => ({ type: 'ToolNotFound', message: 'Error: get_wether is not a valid tool, try one of [get_weather, search_docs].' })],
  [0.15, () => ({ type: 'TimeoutError', message: 'Tool call timed out after 30000 ms' })],
  [0.1, () => ({ type: 'OverflowError', message: 'int too large to convert to float' })],
  [0.1, (_tool, r) => ({ type: 'RuntimeError', message: `upstream returned 502 for request ${Math.floor(r() * 1e9).toString(16)}` })],
];

function pickError(r, tool) {
  let x = r();
  for (const [weight, make] of ERRORS) {
    if ((x -= weight) <= 0) return make(tool, r);
  }
  return ERRORS[ERRORS.length - 1][1](tool, r);
}

/** One event in toolcoach's wire format. */
export function makeEvent(r, id, occurredAt) {
  const tool = pickTool(r);
  const isError = r() < tool.errorRate;
  const event = {
    id,
    tool: tool.name,
    status: isError ? 'error' : 'success',
    arguments: tool.args(r),
    durationMs: Math.round(Math.exp(3 + r() * 4) * 10) / 10,
    agent: pick(r, AGENTS),
    model: pick(r, MODELS),
    framework: 'langgraph',
    sessionId: `sess-${Math.floor(r() * 5000)}`,
    descriptionVersion: 1 + Math.floor(r() * 3),
  };
  if (occurredAt) event.occurredAt = occurredAt;
  if (isError) event.error = pickError(r, tool);
  else event.result = { ok: true, items: Math.floor(r() * 10) };
  return event;
}

/**
 * A batch body whose event ids change on every call at low cost: the body is pre-rendered once around id
 * placeholders and re-joined with a fresh prefix, so the load generator spends its CPU sending, not building JSON.
 */
export function batchBodyFactory(batchSize, seed = 7) {
  const r = random(seed);
  const MARK = '@@ID@@';
  const events = Array.from({ length: batchSize }, (_, i) => makeEvent(r, `${MARK}${i}`));
  const parts = JSON.stringify({ events }).split(MARK);
  let counter = 0;
  return (runId) => {
    const prefix = `${runId}-${(counter++).toString(36)}-`;
    return parts.join(prefix);
  };
}
