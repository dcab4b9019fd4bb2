import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual, promisify } from 'node:util';
import { eventually, startTestApp, TestApp } from '../support/test-app';

const README = join(__dirname, '..', '..', 'README.md');
/** Fenced blocks with this info string are run in order by this test; every other block is prose. */
const EXAMPLE_INFO = 'bash readme-example';
const STATUS_MARKER = '@@status=';

interface Example {
  line: number;
  command: string;
  /** The documented answer: `# 201 {"name":...}` and the comment lines right after it. */
  answer: string;
}

/** Every command of the marked blocks with the comment lines that follow it, in README order. */
function readExamples(markdown: string): Example[] {
  const examples: Example[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (lines[i] !== '```' + EXAMPLE_INFO) continue;
    let current: Example | null = null;
    for (i++; lines[i] !== '```'; i++) {
      const line = lines[i];
      if (line.trim() === '') current = null;
      else if (line.startsWith('#')) {
        if (current) current.answer += `${line.slice(1)}\n`;
      } else {
        current = { line: i + 1, command: line, answer: '' };
        while (!isCompleteCommand(current.command)) current.command += `\n${lines[++i]}`;
        examples.push(current);
      }
    }
  }
  return examples;
}

/** Not inside quotes and not continued with a backslash: the shell would run it now. */
function isCompleteCommand(text: string): boolean {
  let quote: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (quote === "'") {
      if (char === "'") quote = null;
    } else if (char === '\\') i++;
    else if (quote === '"') {
      if (char === '"') quote = null;
    } else if (char === "'" || char === '"') quote = char;
  }
  return quote === null && !text.endsWith('\\');
}

/** The documented status (the answer's first word when it is one) and its `"key":scalar` pairs that are not elided. */
function documentedAnswer(answer: string): { status: number | null; fields: [string, unknown][] } {
  const status = /^\s*([1-5][0-9]{2})\b/.exec(answer);
  const fields: [string, unknown][] = [];
  for (const match of answer.matchAll(/"([A-Za-z]+)":("(?:[^"\\]|\\.)*"|-?[0-9]+(?:\.[0-9]+)?|true|false|null)/g)) {
    if (!/…|\.\.\./.test(match[2])) fields.push([match[1], JSON.parse(match[2])]);
  }
  return { status: status ? Number(status[1]) : null, fields };
}

/** True when some object in `value` has `key` set to `expected`. */
function holdsField(value: unknown, key: string, expected: unknown): boolean {
  if (Array.isArray(value)) return value.some((item) => holdsField(item, key, expected));
  if (typeof value !== 'object' || value === null) return false;
  if (Object.hasOwn(value, key) && isDeepStrictEqual((value as Record<string, unknown>)[key], expected)) return true;
  return Object.values(value).some((item) => holdsField(item, key, expected));
}

describe('README examples, run in order on a fresh project', () => {
  let t: TestApp;
  let stateDir: string;
  beforeAll(async () => {
    t = await startTestApp();
    stateDir = mkdtempSync(join(tmpdir(), 'readme-examples-'));
    writeFileSync(join(stateDir, 'state.sh'), '');
  });
  afterAll(async () => {
    rmSync(stateDir, { recursive: true, force: true });
    await t.close();
  });

  /**
   * Runs one command in bash against the test app with this project's key; shell variables a command assigns
   * (`ETAG=$(curl ...)`) are kept for the next ones. A curl at the start of the command also prints its status.
   */
  async function run(command: string): Promise<{ status: number | null; output: string }> {
    const port = new URL(t.baseUrl).port;
    const local = command.replaceAll('localhost:3000', `127.0.0.1:${port}`).replaceAll('tc_dev_key', t.apiKey);
    const instrumented = local.replace(/^curl /, `curl -w '\\n${STATUS_MARKER}%{http_code}' `);
    const assigned = [...local.matchAll(/^([A-Z_]+)=/gm)].map((match) => match[1]);
    const state = join(stateDir, 'state.sh');
    const script = [`source ${state}`, instrumented, ...assigned.map((name) => `printf '%s=%q\\n' ${name} "$${name}" >> ${state}`)];
    const { stdout } = await promisify(execFile)('bash', ['-c', script.join('\n')], { timeout: 10_000 });
    const marker = stdout.lastIndexOf(STATUS_MARKER);
    if (marker >= 0) return { status: Number(stdout.slice(marker + STATUS_MARKER.length).trim()), output: stdout.slice(0, marker) };
    const printed = /^\s*([1-5][0-9]{2})\s*$/.exec(stdout);
    return { status: printed ? Number(printed[1]) : null, output: stdout };
  }

  const examples = readExamples(readFileSync(README, 'utf8'));

  it('finds the marked examples, each with a documented answer unless it only sets a shell variable', () => {
    expect(examples.length).toBeGreaterThanOrEqual(15);
    for (const example of examples) {
      if (!/^[A-Z_]+=/.test(example.command))
        expect({ line: example.line, answer: example.answer.trim() }).not.toMatchObject({ answer: '' });
    }
  });

  it('answers every example as the README shows it (status and every shown field)', async () => {
    for (const example of examples) {
      const expected = documentedAnswer(example.answer);
      const isRead = !/-X (POST|PUT|PATCH|DELETE)/.test(example.command);
      // a read right after a write may run before the worker stored the event: the README says "a moment later"
      const answer =
        isRead && expected.status
          ? await eventually(async () => {
              const result = await run(example.command);
              return result.status === expected.status ? result : undefined;
            }, 15_000).catch(() => run(example.command))
          : await run(example.command);
      const where = `README.md:${example.line}: ${example.command.split('\n')[0]}`;
      if (expected.status !== null) expect({ where, status: answer.status }).toEqual({ where, status: expected.status });
      if (expected.fields.length === 0) continue;
      const body: unknown = JSON.parse(answer.output.slice(answer.output.indexOf('{')));
      const missing = expected.fields.filter(([key, value]) => !holdsField(body, key, value));
      expect({ where, missing }).toEqual({ where, missing: [] });
    }
  });
});
