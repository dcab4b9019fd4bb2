import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  /** The parsed JSON the SDK sent: tests read it loosely and assert its shape with expect. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  atMs: number;
}

export interface Answer {
  status?: number;
  headers?: Record<string, string>;
  body?: unknown;
  delayMs?: number;
}

type Responder = (request: ReceivedRequest) => Answer;

/**
 * A real HTTP server whose answers a test scripts: `answerNext` queues answers for the next requests (fail, delay,
 * rate-limit), and `otherwise` answers the rest.
 */
export class ScriptedServer {
  readonly requests: ReceivedRequest[] = [];
  private readonly queued: Answer[] = [];
  private otherwise: Responder = () => ({ status: 202, body: { accepted: 1, rejected: [] } });
  private readonly server: Server;
  private readonly pending = new Set<NodeJS.Timeout>();
  private waiters: Array<() => void> = [];

  private constructor() {
    this.server = createServer((req, res) => this.handle(req, res));
  }

  static async start(): Promise<ScriptedServer> {
    const scripted = new ScriptedServer();
    await new Promise<void>((resolve) => scripted.server.listen(0, '127.0.0.1', resolve));
    return scripted;
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  answerNext(...answers: Answer[]): this {
    this.queued.push(...answers);
    return this;
  }

  answerOtherwise(responder: Responder): this {
    this.otherwise = responder;
    return this;
  }

  /**
   * Answers like the registry: every tool of the last bulk registration is served at `version` with a warning about
   * 'n' appended to its description, carrying `guard` as its guard section; events are accepted.
   */
  serveRegistryWithWarning(version: number, guard: unknown = null): this {
    return this.answerOtherwise((request) => {
      if (request.url === '/v1/tools:bulk') {
        return {
          status: 200,
          body: { tools: request.body.tools.map((t: { name: string }) => ({ name: t.name, version, status: 'updated' })) },
        };
      }
      if (request.url.startsWith('/v1/tools?format=raw')) {
        const registered = this.requests.filter((r) => r.url === '/v1/tools:bulk').at(-1)!.body.tools;
        const tools = registered.map((t: { name: string; description: string; parameters: unknown }) => ({
          name: t.name,
          version,
          baseDescription: t.description,
          description: `${t.description}\nWARNING: 'n' above 20 fails.`,
          warnings: [],
          parameters: t.parameters,
          guard,
        }));
        return { status: 200, body: { format: 'raw', tools, nextCursor: null } };
      }
      return { status: 202, body: { accepted: 1, rejected: [] } };
    });
  }

  /** The events of every POST /v1/events received so far, in order. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- see ReceivedRequest.body
  get events(): any[] {
    return this.requests.filter((r) => r.url === '/v1/events').flatMap((r) => r.body.events);
  }

  async waitForRequests(count: number, timeoutMs = 5000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.requests.length < count) {
      if (Date.now() > deadline) throw new Error(`expected ${count} requests, got ${this.requests.length}`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 50);
      });
    }
  }

  async close(): Promise<void> {
    for (const timer of this.pending) clearTimeout(timer);
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    req.on('end', () => {
      let body: unknown = text;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        // keep the text
      }
      const request: ReceivedRequest = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body, atMs: Date.now() };
      this.requests.push(request);
      const answer = this.queued.shift() ?? this.otherwise(request);
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(answer.status ?? 200, { 'content-type': 'application/json', ...answer.headers });
        res.end(answer.body === undefined ? '' : JSON.stringify(answer.body));
        const waiters = this.waiters;
        this.waiters = [];
        for (const wake of waiters) wake();
      };
      if (!answer.delayMs) return send();
      const timer = setTimeout(() => {
        this.pending.delete(timer);
        send();
      }, answer.delayMs);
      this.pending.add(timer);
    });
  }
}

/** A URL where nothing listens: connections are refused at once. */
export async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}
