import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual, promisify } from 'node:util';
import { documentationFiles, REPO_ROOT } from '../support/documentation-files';
import { eventually, startTestApp, TestApp } from '../support/test-app';

// Every example of README.md and docs/**/*.md runs here. The rule for code shown in them:
// - ```bash readme-example blocks are run in order, per file, each file on an empty project of its own, with bash and
//   curl against the booted app; each documented status and every field an answer shows is checked.
// - ```ts / ```js / ```python blocks carry example=<path> and equal that file exactly; another test executes the file
//   (or they carry `quote`: text quoted from another project's source, or an excerpt of ours). src/docs.spec.ts checks
//   this, with the README's length and every relative link.
// - Every other block (```json answers, ```text, plain ```bash of shell set-up such as `npm ci`) is prose.

/** Fenced blocks with this info string are run in order by this test; every other block is prose. */
const EXAMPLE_INFO = 'bash readme-example';
const STATUS_MARKER = '@@status=';

interface Example {
  line: number;
  command: string;
  /** The documented answer: `# 201 {"name":...}` and the comment lines right after it. */
  answer: string;
}

/** Every command of the marked blocks with the comment lines that follow it, in page order. */
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

/** Each page's examples, in page order; pages without any are left out. */
const pages = documentationFiles()
  .map((file) => ({ file, examples: readExamples(readFileSync(join(REPO_ROOT, file), 'utf8')) }))
  .filter((page) => page.examples.length > 0);

describe('README and docs examples, run in order per page, each page on an empty project', () => {
  let t: TestApp;
  let stateDir: string;
  beforeAll(async () => {
    t = await startTestApp();
    stateDir = mkdtempSync(join(tmpdir(), 'readme-examples-'));
  });
  afterAll(async () => {
    rmSync(stateDir, { recursive: true, force: true });
    await t.close();
  });

  /**
   * Runs one command in bash against the test app with the page's project key; shell variables a command assigns
   * (`ETAG=$(curl ...)`) are kept for the page's next ones. A curl at the start of the command also prints its status.
   */
  async function run(command: string, apiKey: string, state: string): Promise<{ status: number | null; output: string }> {
    const port = new URL(t.baseUrl).port;
    const local = command.replaceAll('localhost:3000', `127.0.0.1:${port}`).replaceAll('tc_dev_key', apiKey);
    const instrumented = local.replace(/^curl /, `curl -w '\\n${STATUS_MARKER}%{http_code}' `);
    const assigned = [...local.matchAll(/^([A-Z_]+)=/gm)].map((match) => match[1]);
    const script = [`source ${state}`, instrumented, ...assigned.map((name) => `printf '%s=%q\\n' ${name} "$${name}" >> ${state}`)];
    const { stdout } = await promisify(execFile)('bash', ['-c', script.join('\n')], { timeout: 10_000 });
    const marker = stdout.lastIndexOf(STATUS_MARKER);
    if (marker >= 0) return { status: Number(stdout.slice(marker + STATUS_MARKER.length).trim()), output: stdout.slice(0, marker) };
    const printed = /^\s*([1-5][0-9]{2})\s*$/.exec(stdout);
    return { status: printed ? Number(printed[1]) : null, output: stdout };
  }

  it('finds the marked examples, each with a documented answer unless it only sets a shell variable', () => {
    expect(pages.map((page) => page.file)).toEqual(
      expect.arrayContaining(['README.md', 'docs/live-descriptions.md', 'docs/integrations/http.md']),
    );
    expect(pages.reduce((sum, page) => sum + page.examples.length, 0)).toBeGreaterThanOrEqual(15);
    for (const { file, examples } of pages) {
      for (const example of examples) {
        if (!/^[A-Z_]+=/.test(example.command))
          expect({ file, line: example.line, answer: example.answer.trim() }).not.toMatchObject({ answer: '' });
      }
    }
  });

  it.each(pages.map((page) => [page.file, page.examples] as const))(
    'answers every example of %s as the page shows it (status and every shown field)',
    async (file, examples) => {
      const project = await t.createProject(`docs-${file.replace(/[^a-z0-9]+/gi, '-').toLowerCase()}`);
      const state = join(stateDir, `${file.replace(/[^a-z0-9]+/gi, '-')}.sh`);
      writeFileSync(state, '');
      for (const example of examples) {
        const expected = documentedAnswer(example.answer);
        const isRead = !/-X (POST|PUT|PATCH|DELETE)/.test(example.command);
        // a read right after a write may run before the worker stored the event: the page says "a moment later"
        const answer =
          isRead && expected.status
            ? await eventually(async () => {
                const result = await run(example.command, project.apiKey, state);
                return result.status === expected.status ? result : undefined;
              }, 15_000).catch(() => run(example.command, project.apiKey, state))
            : await run(example.command, project.apiKey, state);
        const where = `${file}:${example.line}: ${example.command.split('\n')[0]}`;
        if (expected.status !== null) expect({ where, status: answer.status }).toEqual({ where, status: expected.status });
        if (expected.fields.length === 0) continue;
        const body: unknown = JSON.parse(answer.output.slice(answer.output.indexOf('{')));
        const missing = expected.fields.filter(([key, value]) => !holdsField(body, key, value));
        expect({ where, missing }).toEqual({ where, missing: [] });
      }
    },
    60_000,
  );
});
