import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { randomBytes } from 'node:crypto';
import { createApp } from '../../src/app.factory';
import { AppConfig, loadConfig } from '../../src/config/config';
import { createRootLogger } from '../../src/infra/logging/logger';
import { QueueProducer } from '../../src/infra/queue/queue.producer';
import { ProjectService } from '../../src/tenancy/project.service';
import { createTestDatabase, TestDatabase } from './test-database';
import { REDIS_URL } from './test-env';

export interface TestApp {
  app: NestFastifyApplication;
  config: AppConfig;
  db: TestDatabase;
  baseUrl: string;
  /** API key of a fresh project created for this test file. */
  apiKey: string;
  projectId: string;
  request(
    method: string,
    path: string,
    options?: { body?: unknown; rawBody?: string; headers?: Record<string, string>; key?: string | null },
  ): Promise<TestResponse>;
  createProject(name: string): Promise<{ projectId: string; apiKey: string }>;
  /** The stored event with this id, once the worker has stored (and categorized) it. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- see TestResponse.body
  storedEvent(id: string): Promise<any>;
  close(): Promise<void>;
}

export interface TestResponse {
  status: number;
  headers: Headers;
  /**
   * The parsed JSON answer of any route. Still `any`: typing it `unknown` asks each of ~300 reads to name the route's
   * response type; until the routes export those types, tests assert the shape with expect instead (issue 14).
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

export interface TestAppOptions {
  /** Boot a second instance of `sharing`'s deployment: same database, queue prefix and project; its close() keeps them. */
  sharing?: TestApp;
  /** The URL the app uses for its own database, e.g. through a TCP proxy of the test (default: the direct URL). */
  databaseUrl?: (directUrl: string) => string;
}

/**
 * Boots the real application (api + worker by default) on a random port against a database and a BullMQ prefix of its
 * own, so test files never see each other's rows or jobs.
 */
export async function startTestApp(env: Record<string, string> = {}, options: TestAppOptions = {}): Promise<TestApp> {
  const { sharing } = options;
  const db = sharing ? sharing.db : await createTestDatabase();
  const queuePrefix = sharing ? sharing.config.queuePrefix : `tc-test-${randomBytes(4).toString('hex')}`;
  const config = loadConfig({
    NODE_ENV: 'test',
    DATABASE_URL: options.databaseUrl ? options.databaseUrl(db.url) : db.url,
    REDIS_URL,
    ROLES: 'api,worker',
    LOG_LEVEL: 'silent',
    QUEUE_PREFIX: queuePrefix,
    JOB_ATTEMPTS: '3',
    WORKER_LOCK_DURATION_MS: '2000',
    ...env,
  });
  const app = await createApp(config, createRootLogger(config.logLevel));
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.getHttpServer().address() as { port: number };
  const baseUrl = `http://127.0.0.1:${address.port}`;
  const projects = app.get(ProjectService);
  const project = sharing
    ? { apiKey: sharing.apiKey, projectId: sharing.projectId }
    : await projects.createProject(`test-${randomBytes(3).toString('hex')}`);

  const request: TestApp['request'] = async (method, path, options = {}) => {
    const headers: Record<string, string> = { ...options.headers };
    const key = options.key === undefined ? project.apiKey : options.key;
    if (key !== null) headers.authorization = `Bearer ${key}`;
    let payload: string | undefined = options.rawBody;
    if (options.body !== undefined) {
      payload = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetch(baseUrl + path, { method, headers, body: payload });
    const text = await response.text();
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      // not JSON: keep the text
    }
    return { status: response.status, headers: response.headers, body };
  };

  return {
    app,
    config,
    db,
    baseUrl,
    apiKey: project.apiKey,
    projectId: project.projectId,
    request,
    createProject: (name) => projects.createProject(name),
    storedEvent: (id) =>
      eventually(async () => {
        const response = await request('GET', `/v1/events/${encodeURIComponent(id)}`);
        return response.status === 200 ? response.body : undefined;
      }),
    async close() {
      // the job schedulers a scheduler role upserted outlive every process by design; a test's prefix ends with it
      if (!sharing && config.roles.has('scheduler')) await app.get(QueueProducer).unscheduleAllBut([]);
      await app.close();
      if (!sharing) await db.drop();
    },
  };
}

/** The worker has nothing left to run: no events job waiting, running or waiting to be retried. */
export async function isWorkerIdle(t: TestApp): Promise<boolean> {
  const counts = await t.app.get(QueueProducer).events.getJobCounts('waiting', 'active', 'delayed', 'prioritized');
  return Object.values(counts).every((n) => n === 0);
}

/**
 * Waits until every batch accepted so far has been processed (stored or dead-lettered). A test that asserts that
 * something did not happen waits for this first, never for a fixed time.
 */
export async function untilWorkerIdle(t: TestApp, timeoutMs = 30_000): Promise<void> {
  await eventually(async () => ((await isWorkerIdle(t)) ? true : undefined), timeoutMs);
}

/** Polls until `check` returns a value that is not undefined, or fails after `timeoutMs`. */
export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 10_000, intervalMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (error) {
      lastError = error;
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  throw new Error(`condition not met within ${timeoutMs} ms${lastError ? `: ${String(lastError)}` : ''}`);
}
