import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { documentationFiles, REPO_ROOT } from '../test/support/documentation-files';

// The documentation's rules: the README stays a short front door; every relative link of README.md and docs/ leads
// to a file (and heading) that exists; and code shown in them is real. A ```ts / ```typescript / ```js / ```python
// block carries either `example=<repo-relative path>`, and then equals that file exactly (a test executes the file),
// or `quote`, for text quoted from another project's source or an excerpt of ours, cited beside it. A block of another
// kind may name an example file too (```json example=...), and then equals it; otherwise it is prose. ```bash
// readme-example blocks are run by test/e2e/readme-examples.e2e-spec.ts.

const MAX_README_LINES = 250;
const CODE_LANGUAGES = new Set(['ts', 'typescript', 'js', 'javascript', 'python', 'py']);

interface Fence {
  line: number;
  info: string;
  text: string;
}

/** The fenced blocks of a page, and its lines outside them (where headings and links count). */
function splitFences(markdown: string): { fences: Fence[]; prose: Array<{ line: number; text: string }> } {
  const fences: Fence[] = [];
  const prose: Array<{ line: number; text: string }> = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(.*)$/.exec(lines[i]);
    if (!open) {
      prose.push({ line: i + 1, text: lines[i] });
      continue;
    }
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && lines[i] !== '```'; i++) body.push(lines[i]);
    fences.push({ line: start + 1, info: open[1].trim(), text: body.length === 0 ? '' : `${body.join('\n')}\n` });
  }
  return { fences, prose };
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, each space a hyphen; repeats get -1, -2, ... */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const { text } of splitFences(markdown).prose) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(text);
    if (!heading) continue;
    const base = heading[1]
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

const read = (path: string) => readFileSync(join(REPO_ROOT, path), 'utf8');

describe('documentation', () => {
  const files = documentationFiles();

  it(`keeps README.md a front door of at most ${MAX_README_LINES} lines`, () => {
    const lines = read('README.md').trimEnd().split('\n').length;
    expect(lines).toBeLessThanOrEqual(MAX_README_LINES);
  });

  it('finds the pages: README.md, the docs and an integration page each for LangChain.js, Python, MCP, OTel, HTTP', () => {
    for (const page of ['langchain-js', 'langchain-python', 'mcp', 'opentelemetry', 'http'])
      expect(files).toContain(`docs/integrations/${page}.md`);
  });

  it('links only to files and headings that exist, relative to each page', () => {
    const broken: string[] = [];
    for (const file of files) {
      for (const { line, text } of splitFences(read(file)).prose) {
        const withoutCode = text.replace(/`[^`]*`/g, '');
        for (const link of withoutCode.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
          const target = link[1];
          if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
          const [path, anchor] = target.split('#') as [string, string | undefined];
          const resolved = path === '' ? join(REPO_ROOT, file) : resolve(dirname(join(REPO_ROOT, file)), decodeURIComponent(path));
          const where = `${file}:${line}: ${target}`;
          if (!existsSync(resolved)) broken.push(`${where} (no such file)`);
          else if (anchor !== undefined && resolved.endsWith('.md') && statSync(resolved).isFile()) {
            if (!anchorsOf(readFileSync(resolved, 'utf8')).has(anchor))
              broken.push(`${where} (no such heading in ${relative(REPO_ROOT, resolved)})`);
          }
        }
      }
    }
    expect(broken).toEqual([]);
  });

  it('shows only real code: each ts, js or python block (and any block naming an example) equals its example file, or is marked as a quote', () => {
    const problems: string[] = [];
    for (const file of files) {
      for (const fence of splitFences(read(file)).fences) {
        const [language, ...attributes] = fence.info.split(/\s+/);
        const where = `${file}:${fence.line}`;
        const example = attributes.find((attribute) => attribute.startsWith('example='))?.slice('example='.length);
        if (example === undefined) {
          if (CODE_LANGUAGES.has(language) && !attributes.includes('quote'))
            problems.push(`${where}: a ${language} block needs example=<path> or quote`);
        } else if (!existsSync(join(REPO_ROOT, example))) problems.push(`${where}: ${example} does not exist`);
        else if (read(example) !== fence.text) problems.push(`${where}: the block differs from ${example}`);
      }
    }
    expect(problems).toEqual([]);
  });
});
