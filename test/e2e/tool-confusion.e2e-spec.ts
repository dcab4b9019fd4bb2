import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, BaseMessage } from '@langchain/core/messages';
import { Toolcoach } from '@toolcoach/sdk';
import { ToolcoachCallbackHandler } from '@toolcoach/sdk/langchain';
import { createAgent, tool } from 'langchain';
import { z } from 'zod';
import { hasChromium, openChromium } from '../support/chromium';
import { beforeAllAwayFromDayChange, runNightly } from '../support/job-runs';
import { eventually, startTestApp, TestApp } from '../support/test-app';

// Issue 37, tool confusion, on the default configuration (rollout on, alternating canaries): a real LangChain.js agent
// whose scripted model asks search_orders for one order by its id, gets nothing, and then asks get_order, which answers.
// The model reads the descriptions it is given: when search_orders' description says to use `get_order` for that, it
// calls get_order at once, except in every tenth session (a model does not always follow). Every call is stamped at
// the real time and every nightly is for today, as in rollout-shapes.e2e-spec.ts.

const SESSIONS_PER_PHASE = 30;
const isBrowserHere = hasChromium('the tool-confusion dashboard check (test/e2e/tool-confusion.e2e-spec.ts)');
const today = () => new Date().toISOString().slice(0, 10);

function orderTools() {
  const searchOrders = tool(
    ({ customer, order_id }: { customer?: string; order_id?: string }) => {
      // open orders only: the orders the agents ask about have all shipped
      const open = [{ order_id: 'B-1', customer: 'Ada', status: 'open' }];
      const orders = open.filter(
        (o) => (customer === undefined || o.customer === customer) && (order_id === undefined || o.order_id === order_id),
      );
      return JSON.stringify({ orders, total: orders.length });
    },
    {
      name: 'search_orders',
      description: 'Search open orders by customer name. Returns the matching orders that have not shipped yet.',
      schema: z.object({
        customer: z.string().optional().describe('customer name'),
        order_id: z.string().optional().describe('narrow the search to this order id'),
      }),
    },
  );
  const getOrder = tool(({ order_id }: { order_id: string }) => JSON.stringify({ order_id, status: 'shipped', total: 42 }), {
    name: 'get_order',
    description: 'Fetch one order by its order_id, whatever its status. Returns the order.',
    schema: z.object({ order_id: z.string().describe('the order id, as A-1234') }),
  });
  return [searchOrders, getOrder];
}

type BoundTool = { name: string; description?: string };
let callCounter = 0;
const toolCall = (name: string, args: Record<string, unknown>) => ({
  id: `order_call_${++callCounter}`,
  name,
  args,
  type: 'tool_call' as const,
});

/** The scripted model: looks one order up, by the tool the descriptions it was given point it to. */
class OrdersModel extends BaseChatModel {
  constructor(
    private readonly session: number,
    private readonly boundTools: BoundTool[] = [],
  ) {
    super({});
  }

  override _llmType() {
    return 'scripted-orders';
  }

  override bindTools(tools: BoundTool[]) {
    return new OrdersModel(this.session, tools) as never;
  }

  /** Whether search_orders' description tells it to use get_order for this (the warning names it in backticks). */
  isWarned(): boolean {
    const description = this.boundTools.find((t) => t.name === 'search_orders')?.description ?? '';
    return /use `get_order`/.test(description);
  }

  async _generate(messages: BaseMessage[]) {
    const orderId = `A-${1000 + this.session}`;
    const turn = messages.filter((m) => m.getType() === 'ai').length;
    const last = messages[messages.length - 1];
    let reply: AIMessage;
    if (turn === 0) {
      const isConfused = !this.isWarned() || this.session % 10 === 0;
      reply = new AIMessage({ content: '', tool_calls: [toolCall(isConfused ? 'search_orders' : 'get_order', { order_id: orderId })] });
    } else if (turn === 1 && last.getType() === 'tool' && (last as { name?: string }).name === 'search_orders') {
      reply = new AIMessage({ content: '', tool_calls: [toolCall('get_order', { order_id: orderId })] });
    } else {
      reply = new AIMessage(`Order ${orderId} has shipped.`);
    }
    return { generations: [{ text: typeof reply.content === 'string' ? reply.content : '', message: reply }] };
  }
}

interface Phase {
  /** The version of search_orders the phase's agents were served, and whether it carried the warning. */
  version: number | undefined;
  isWarned: boolean;
  sessions: number;
  confused: number;
}

describe('tool confusion: search_orders taken for get_order, on the default configuration', () => {
  let t: TestApp;
  let project: { projectId: string; apiKey: string };
  const api = (method: string, path: string) => t.request(method, path, { key: project.apiKey });
  let storedBefore = 0;

  beforeAllAwayFromDayChange(async () => {
    t = await startTestApp();
    project = await t.createProject('tool-confusion');
  });
  afterAll(async () => {
    await t?.close();
  });

  /** One phase: a freshly started agent process, one session per conversation, each loading its tools for its session. */
  async function runPhase(phase: number): Promise<Phase> {
    // a generous start-up timeout: on a busy CI box the first registration can take longer than the SDK's default
    const root = new Toolcoach({
      baseUrl: t.baseUrl,
      apiKey: project.apiKey,
      agent: 'orders-agent',
      cacheDir: false,
      flushIntervalMs: 100,
      startupTimeoutMs: 20_000,
    });
    const outcome: Phase = { version: undefined, isWarned: false, sessions: 0, confused: 0 };
    for (let i = 0; i < SESSIONS_PER_PHASE; i++) {
      const tc = root.forSession(`p${phase}-s${i}`);
      const tools = await tc.loadTools(orderTools());
      expect(tc.descriptionSource).toBe('server');
      const model = new OrdersModel(i);
      outcome.version = tc.descriptionVersionOf('search_orders');
      outcome.isWarned = (model.bindTools(tools as never) as unknown as OrdersModel).isWarned();
      const agent = createAgent({ model: model as never, tools: tools as never });
      const { messages } = await agent.invoke(
        { messages: [{ role: 'user', content: `Where is my order A-${1000 + i}?` }] },
        { callbacks: [new ToolcoachCallbackHandler(tc)] },
      );
      const called = messages.filter((m) => m.getType() === 'tool').map((m) => (m as { name?: string }).name);
      outcome.sessions += 1;
      if (called[0] === 'search_orders' && called[1] === 'get_order') outcome.confused += 1;
    }
    const flushed = await root.shutdown(10_000);
    expect(flushed.isComplete).toBe(true);
    const sent = root.stats().sent;
    await eventually(async () => {
      const { rows } = await t.db.sql.query('SELECT count(*)::int AS n FROM events WHERE project_id = $1', [project.projectId]);
      return rows[0].n >= storedBefore + sent ? true : undefined;
    }, 30_000);
    storedBefore += sent;
    return outcome;
  }

  it('counts the pair, serves a warning on search_orders naming get_order, and measures it helped', async () => {
    expect((await api('GET', '/v1/rollout/policy')).body).toMatchObject({ enabled: true, design: 'alternating' });
    const first = await runPhase(0);
    expect(first).toMatchObject({ version: 1, isWarned: false, sessions: 30, confused: 30 });
    expect((await runNightly({ request: (method, path) => api(method, path) }, today())).body).toMatchObject({ status: 'succeeded' });

    // the pair is counted, per version of search_orders, with example sessions; on the tool page and the overview
    const pairs = (await api('GET', '/v1/tools/search_orders/confusions')).body;
    expect(pairs.items).toEqual([
      expect.objectContaining({
        tool: 'search_orders',
        confusedWith: 'get_order',
        confusions: 30,
        confusedSessions: 30,
        sessions: 30,
        confusionRate: 1,
        versions: [{ version: 1, confusions: 30, confusedSessions: 30, sessions: 30 }],
      }),
    ]);
    expect(pairs.items[0].exampleSessionIds).toHaveLength(5);
    expect((await api('GET', '/v1/tools/get_order/confusions')).body.items).toHaveLength(1);
    expect((await api('GET', '/v1/confusions?limit=5')).body.items.map((p: { tool: string }) => p.tool)).toEqual(['search_orders']);
    expect((await api('GET', '/v1/confusions?limit=0')).status).toBe(400);

    // the warning on search_orders names get_order and what each is for, in their own descriptions' words
    const served = (await api('GET', '/v1/tools/search_orders/description')).body;
    expect(served.description).toContain(
      'For "Fetch one order by its order_id, whatever its status" use `get_order`; `search_orders` is for "Search open orders by customer name".',
    );
    const canary = (await api('GET', '/v1/rollout/canaries?tool=search_orders')).body.items[0];
    expect(canary).toMatchObject({ status: 'running', design: 'alternating', canaryVersion: served.version });

    // the canary alternates the two versions one nightly at a time until it is decided
    const phases: Phase[] = [first];
    for (let nightly = 2; nightly <= 5; nightly++) {
      phases.push(await runPhase(nightly - 1));
      expect((await runNightly({ request: (method, path) => api(method, path) }, today())).body).toMatchObject({ status: 'succeeded' });
      const status = (await api('GET', '/v1/rollout/canaries?tool=search_orders')).body.items[0].status;
      if (status !== 'running') break;
    }
    const decided = (await api('GET', '/v1/rollout/canaries?tool=search_orders')).body.items[0];
    expect(decided).toMatchObject({ status: 'promoted', decision: { counted: 'matched_mistakes' } });

    const rate = (list: Phase[]) => list.reduce((n, p) => n + p.confused, 0) / list.reduce((n, p) => n + p.sessions, 0);
    const warned = phases.filter((p) => p.isWarned);
    const unwarned = phases.filter((p) => !p.isWarned);
    console.log(
      `confusions per phase: ${phases.map((p) => `v${p.version}${p.isWarned ? ' (warned)' : ''} ${p.confused}/${p.sessions}`).join(', ')}`,
    );
    expect(warned.length).toBeGreaterThan(0);
    expect(rate(warned)).toBeLessThanOrEqual(rate(unwarned) * 0.2);

    // the effect: confusions of search_orders for get_order per session that called either, with and without
    const recommendations = (await api('GET', '/v1/recommendations?tool=search_orders')).body.items as Array<{
      kind: string;
      status: string;
      effect: { verdict: string; method: string; withWarning: { calls: number; mistakes: number } } | null;
    }>;
    const confusion = recommendations.find((r) => r.kind === 'tool_confusion');
    expect(confusion).toMatchObject({ status: 'applied', effect: { verdict: 'helped', method: 'version' } });
    expect(confusion!.effect!.withWarning.calls).toBeGreaterThanOrEqual(30);
  }, 240_000);

  // the web page (public/dashboard/app.js, confusionsHtml) in real Chromium, on the counts the first test made
  (isBrowserHere ? it : it.skip)(
    "shows the pair on the overview and on both tools' pages, with example sessions",
    async () => {
      const pairs = (await api('GET', '/v1/confusions')).body.items as Array<{ confusions: number; exampleSessionIds: string[] }>;
      expect(pairs).toHaveLength(1);
      const browser = await openChromium();
      try {
        const { page } = browser;
        await page.goto(`${t.baseUrl}/dashboard`);
        await page.fill('#api-key', project.apiKey);
        await page.click('#key-form button');
        const shownPairs = async () => {
          await page.waitForSelector('[data-testid="confused-pair"]', { timeout: 60_000 });
          return page.$$eval('[data-testid="confused-pair"]', (rows) =>
            rows.map((row) => ({
              tool: row.getAttribute('data-tool'),
              confusedWith: row.getAttribute('data-confused-with'),
              confusions: row.querySelector('[data-field="confusions"]')?.textContent,
              sessions: [...row.querySelectorAll('a.events-link')].map((a) => a.textContent),
            })),
          );
        };
        const expected = [
          {
            tool: 'search_orders',
            confusedWith: 'get_order',
            confusions: String(pairs[0].confusions),
            sessions: pairs[0].exampleSessionIds,
          },
        ];
        expect(await shownPairs()).toEqual(expected);
        for (const tool of ['search_orders', 'get_order']) {
          await page.goto(`${t.baseUrl}/dashboard#/tools/${tool}`);
          await page.waitForSelector(`[data-testid="tool-name"]:text("${tool}")`, { timeout: 60_000 });
          expect(await shownPairs()).toEqual(expected);
        }
      } finally {
        await browser.close();
      }
    },
    120_000,
  );
});
