import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A Python virtual environment built from the machine's local wheel mirror, or why there is none. */
export type PythonVenv = { ok: true; python: string; dir: string } | { ok: false; reason: string };

const INSTALL_TIMEOUT_MS = 300_000;

// Real langchain_core 1.6.5 and what it needs, each installed --no-deps from the machine's local wheel mirror:
// `pip install langchain-core` cannot resolve, since its dependency langchain-protocol is not in the mirror.
export const LANGCHAIN_CORE_PACKAGES = [
  'langchain-core==1.6.5',
  'pydantic==2.13.5',
  'pydantic-core==2.46.5',
  'annotated-types',
  'typing-inspection',
  'jsonpatch',
  'jsonpointer',
  'tenacity',
  'pyyaml',
  'typing-extensions',
  'packaging',
  'langsmith',
  'requests',
  'urllib3',
  'idna',
  'certifi',
  'charset-normalizer',
  'uuid_utils',
  'httpx',
  'httpcore',
  'h11',
  'anyio',
  'sniffio',
  'distro',
  'requests_toolbelt',
  'xxhash',
  'ormsgpack',
];
// The `openai` and `anthropic` clients (issue 36) and what they need beyond the list above, --no-deps as well.
export const PROVIDER_CLIENT_PACKAGES = [
  'openai==3.22.1',
  'anthropic==1.13.0',
  'jiter',
  'docstring-parser',
  'httpx2',
  'httpcore2',
  'truststore',
];
export const PROVIDER_CLIENT_PROBE =
  'import openai, anthropic; assert openai.__version__ == "3.22.1" and anthropic.__version__ == "1.13.0"';
/** One venv for every Python test: building one takes minutes, so the test files share it. */
export const PYTHON_TEST_PACKAGES = [...LANGCHAIN_CORE_PACKAGES, ...PROVIDER_CLIENT_PACKAGES];
export const PYTHON_TEST_VENV = 'python-tests';
export const LANGCHAIN_CORE_PROBE =
  'import langchain_core, langchain_core.tools, langchain_core.messages; assert langchain_core.__version__ == "1.6.5"';

/**
 * Builds (once per package list, cached under the OS temp dir) a venv holding exactly `packages`, each installed with
 * `--no-deps` from the local wheel mirror pip is configured with, and checks that `probe` (Python source) runs in it.
 *
 * Only local indexes are used (the `file://` URLs and directories in `pip config list`), so a missing wheel fails in
 * seconds instead of waiting on an unreachable PyPI. No mirror, a failed install or a failed probe give `ok: false`
 * with the reason; the caller reports it with reportSkip, never skips silently.
 *
 * Synchronous on purpose: a test file must know at load time whether its describe block runs.
 */
export function pythonVenv(name: string, packages: string[], probe: string): PythonVenv {
  const python3 = spawnSync('python3', ['--version'], { encoding: 'utf8' });
  if (python3.status !== 0) return { ok: false, reason: 'python3 not found' };
  const sources = localPackageSources();
  if (sources.indexes.length === 0 && sources.findLinks.length === 0) {
    return { ok: false, reason: 'no local wheels (pip config names no file:// index or find-links directory)' };
  }

  const key = createHash('sha256')
    .update(JSON.stringify([python3.stdout.trim(), packages, sources]))
    .digest('hex')
    .slice(0, 12);
  const dir = join(tmpdir(), 'toolcoach-venvs', `${name}-${key}`);
  const python = join(dir, 'bin', 'python');
  if (!existsSync(join(dir, '.complete'))) {
    const built = buildVenv(dir, packages, sources);
    if (built) return { ok: false, reason: built };
  }
  const check = spawnSync(python, ['-c', probe], { encoding: 'utf8', timeout: 60_000 });
  if (check.status !== 0) {
    return { ok: false, reason: `the venv's import probe failed: ${lastLines(check.stderr || check.stdout, 3)}` };
  }
  return { ok: true, python, dir };
}

interface PackageSources {
  indexes: string[];
  findLinks: string[];
}

function localPackageSources(): PackageSources {
  const listed = spawnSync('python3', ['-m', 'pip', 'config', 'list'], { encoding: 'utf8' });
  const indexes: string[] = [];
  const findLinks: string[] = [];
  for (const line of (listed.stdout ?? '').split('\n')) {
    const match = /^[^=]*\.(index-url|extra-index-url|find-links)='(.*)'$/.exec(line.trim());
    if (!match) continue;
    for (const location of match[2].split(/\s+/).filter(Boolean)) {
      const path = location.startsWith('file://') ? location.slice('file://'.length) : location.startsWith('/') ? location : undefined;
      if (!path || !existsSync(path)) continue;
      if (match[1] === 'find-links') findLinks.push(path);
      else indexes.push(`file://${path}`);
    }
  }
  return { indexes: [...new Set(indexes)], findLinks: [...new Set(findLinks)] };
}

/** Builds the venv in a scratch directory and renames it into place, so concurrent test files never see half of one. */
function buildVenv(dir: string, packages: string[], sources: PackageSources): string | undefined {
  const scratch = `${dir}.${process.pid}.${Date.now()}`;
  mkdirSync(scratch, { recursive: true });
  try {
    const created = spawnSync('python3', ['-m', 'venv', scratch], { encoding: 'utf8', timeout: 120_000 });
    if (created.status !== 0) return `python3 -m venv failed: ${lastLines(created.stderr, 3)}`;
    const [index, ...extra] = sources.indexes;
    const args = [
      '-m',
      'pip',
      'install',
      '--quiet',
      '--no-deps',
      '--disable-pip-version-check',
      ...(index ? ['--index-url', index] : ['--no-index']),
      ...extra.flatMap((url) => ['--extra-index-url', url]),
      ...sources.findLinks.flatMap((path) => ['--find-links', path]),
      ...packages,
    ];
    const installed = spawnSync(join(scratch, 'bin', 'python'), args, { encoding: 'utf8', timeout: INSTALL_TIMEOUT_MS });
    if (installed.status !== 0) {
      const why = lastLines((installed.stderr ?? '').replace(/^WARNING: Location .* is ignored.*\n?/gm, ''), 3);
      return `no local wheels for ${packages.join(' ')}: ${why || `pip exited with ${installed.status}`}`;
    }
    writeFileSync(join(scratch, '.complete'), packages.join('\n'));
    if (existsSync(join(dir, '.complete'))) return undefined;
    rmSync(dir, { recursive: true, force: true });
    renameSync(scratch, dir);
    return undefined;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

function lastLines(text: string, count: number): string {
  return text.trim().split('\n').slice(-count).join(' / ');
}
