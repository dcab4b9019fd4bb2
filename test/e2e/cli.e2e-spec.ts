import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { eventually, startTestApp, TestApp } from '../support/test-app';

const CLI_JS = join(__dirname, '..', '..', 'dist', 'src', 'cli.js');

/** The compiled CLI (`npm run cli -- ...`) against the test app's database and queue prefix. */
async function cli(t: TestApp, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { PATH: process.env.PATH ?? '', DATABASE_URL: t.db.url, REDIS_URL: t.config.redisUrl, QUEUE_PREFIX: t.config.queuePrefix };
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [CLI_JS, ...args], { env });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/** Rows of a printed table as objects keyed by its header (columns are separated by two or more spaces). */
function parseTable(stdout: string): Record<string, string>[] {
  const [header, ...rows] = stdout
    .trim()
    .split('\n')
    .map((line) => line.split(/\s{2,}/));
  return rows.map((row) => Object.fromEntries(header.map((title, i) => [title, row[i] ?? ''])));
}

// every step runs the CLI in a process of its own (Node, Nest's context, Prisma): seconds each on a busy 2-core box
jest.setTimeout(120_000);

describe('CLI: projects and keys', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('creates a project, lists it with its active keys, and lists its keys without their secrets', async () => {
    const created = await cli(t, 'project:create', 'cli-team');
    expect(created.code).toBe(0);
    const firstKey = /export TOOLCOACH_API_KEY=(\S+)/.exec(created.stdout)![1];
    const second = await cli(t, 'key:create', 'cli-team', 'ci-key');
    const secondKey = second.stdout.trim();

    const projects = parseTable((await cli(t, 'project:list')).stdout);
    expect(projects.find((p) => p.NAME === 'cli-team')).toMatchObject({ 'ACTIVE KEYS': '2' });

    const listed = await cli(t, 'key:list', 'cli-team');
    expect(listed.code).toBe(0);
    expect(listed.stdout).not.toContain(firstKey);
    expect(listed.stdout).not.toContain(secondKey);
    const keys = parseTable(listed.stdout);
    expect(keys.map((k) => [k.NAME, k.PREFIX, k['LAST USED'], k.REVOKED])).toEqual([
      ['initial', `${firstKey.slice(0, 10)}...`, '-', '-'],
      ['ci-key', `${secondKey.slice(0, 10)}...`, '-', '-'],
    ]);

    expect((await cli(t, 'key:list', 'no-such-project')).stderr).toContain('project "no-such-project" does not exist');
  });

  it('shows when a key was last used', async () => {
    const { apiKey } = await t.createProject('cli-used');
    expect((await t.request('GET', '/v1/events', { key: apiKey })).status).toBe(200);
    const lastUsed = await eventually(async () => {
      const [key] = parseTable((await cli(t, 'key:list', 'cli-used')).stdout);
      return key['LAST USED'] !== '-' ? key['LAST USED'] : undefined;
    });
    expect(Date.now() - Date.parse(lastUsed)).toBeLessThan(60_000);
  });

  it('revokes a key by its name within the project and another by its id; both are refused from then on', async () => {
    const { apiKey } = await t.createProject('cli-revoke');
    const byIdKey = (await cli(t, 'key:create', 'cli-revoke', 'laptop')).stdout.trim();
    expect((await t.request('GET', '/v1/events', { key: apiKey })).status).toBe(200);

    const byName = await cli(t, 'key:revoke', 'cli-revoke', 'initial');
    expect(byName).toMatchObject({ code: 0, stdout: '1 key revoked\n' });
    await eventually(async () => ((await t.request('GET', '/v1/events', { key: apiKey })).status === 401 ? true : undefined));

    const laptop = parseTable((await cli(t, 'key:list', 'cli-revoke')).stdout).find((k) => k.NAME === 'laptop')!;
    expect((await cli(t, 'key:revoke', laptop.ID)).code).toBe(0);
    expect((await t.request('GET', '/v1/events', { key: byIdKey })).status).toBe(401);

    const keys = parseTable((await cli(t, 'key:list', 'cli-revoke')).stdout);
    expect(keys.every((k) => k.REVOKED !== '-')).toBe(true);
    expect(await cli(t, 'key:revoke', laptop.ID)).toMatchObject({ code: 1, stdout: 'no active key matches\n' });
    expect((await cli(t, 'key:revoke', 'cli-revoke', 'no-such-key')).code).toBe(1);
  });
  it('exports the labelled unknown templates as the fixture lines the API answers, for a project named by name or id', async () => {
    const { projectId, apiKey } = await t.createProject('cli-labels');
    // templates as the worker folds unknown failures into them (test/e2e/unknown-lane.e2e-spec.ts covers that path)
    const templates = [
      { id: randomUUID(), message: "Frobnicator quota spent for account 8812 (ref 'alpha')", category: 'runtime_error', subtype: null },
      { id: randomUUID(), message: 'Widget size 900 exceeds the tray', category: 'out_of_range', subtype: 'above_maximum' },
      { id: randomUUID(), message: 'Tool execution failed', category: null, subtype: null },
    ];
    for (const { id, message, category, subtype } of templates) {
      await t.db.sql.query(
        `INSERT INTO unknown_templates (project_id, id, template, count, first_seen, last_seen, sample_event_ids, example_tool, example_message)
         VALUES ($1, $2, $3, 1, now(), now(), '{}', 'ship_order', $3)`,
        [projectId, id, message],
      );
      if (category === null) continue;
      const labelled = await t.request('POST', `/v1/unknown-templates/${id}/label`, { key: apiKey, body: { category, subtype } });
      expect(labelled.status).toBe(200);
    }
    const out = join(tmpdir(), `labels-${randomUUID()}.jsonl`);

    const byName = await cli(t, 'unknown-labels:export', '--project', 'cli-labels', '--out', out);
    const byId = await cli(t, 'unknown-labels:export', '--project', projectId);

    expect([byName.code, byName.stdout, byName.stderr.trim()]).toEqual([0, '', `2 labelled templates written to ${out}`]);
    const written = readFileSync(out, 'utf8');
    expect(
      written
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line)),
    ).toEqual([
      expect.objectContaining({
        family: `label:${projectId}`,
        tool: 'ship_order',
        error: { type: null, message: templates[0].message },
        expected: { category: 'runtime_error', subtype: null },
      }),
      expect.objectContaining({
        error: { type: null, message: templates[1].message },
        expected: { category: 'out_of_range', subtype: 'above_maximum' },
      }),
    ]);
    expect([byId.code, byId.stdout]).toEqual([0, written]);
    expect((await t.request('GET', '/v1/unknown-templates/fixtures', { key: apiKey })).body).toBe(written);

    const missing = await cli(t, 'unknown-labels:export', '--project', 'no-such-project');
    expect([missing.code, missing.stderr.trim()]).toEqual([1, 'project "no-such-project" does not exist']);
    expect((await cli(t, 'unknown-labels:export', '--out', out)).code).toBe(2);
  });
});
