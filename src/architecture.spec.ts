import { readdirSync, readFileSync } from 'node:fs';
import { join, posix, relative, resolve } from 'node:path';
import * as ts from 'typescript';

// The arrows between parts of the code that must never exist (docs/architecture.md lists the same). Imports
// are read by TypeScript's own pre-processor: static imports, re-exports, `import type`, dynamic import() and require().

const REPO_ROOT = resolve(__dirname, '..');
const FEATURES = [
  'src/ingest',
  'src/categorize',
  'src/registry',
  'src/rollout',
  'src/analytics',
  'src/alerts',
  'src/retention',
  'src/dashboard',
];
/** Every folder of src/ (at any depth, but inside the generated client) and what it is; docs/architecture.md's
 * Folders table names each too, one line each (a test checks both). */
const FOLDERS: Record<string, string> = {
  'src/alerts': 'feature: alert rules, incidents and webhook deliveries',
  'src/analytics': 'feature: the nightly job (stats, recommendations, auto-applied warnings, effects)',
  'src/categorize': 'feature: the worker that categorizes and stores events',
  'src/config': 'shared: the validated environment, the only reader of process.env',
  'src/dashboard': 'reader at the edge: read-only queries and the web page',
  'src/diagnosis': 'pure core: categorizer, fingerprints, schema evidence',
  'src/diagnosis/fallback': 'the learned fallback model for what no rule explains: features, weights, training',
  'src/generated': 'generated: the Prisma client',
  'src/infra': 'shared infrastructure, below every feature',
  'src/infra/event-loop': 'time slices that long checks yield in, so waiting requests go first',
  'src/infra/health': '/healthz and /readyz',
  'src/infra/http': 'the HTTP edge: body parsers, error bodies, cursors, page bytes, security and cache headers',
  'src/infra/http/openapi': "the API document, built from each route's @ApiRoute",
  'src/infra/locks': 'Postgres advisory locks',
  'src/infra/logging': 'the pino logger',
  'src/infra/prisma': 'the Prisma client, the pg pools and the migration runner',
  'src/infra/queue': 'queue and job names, payload schemas, the producer, workers found from @JobHandler, recurring jobs',
  'src/infra/queue/dead-letters': "each project's dead letters: stored, listed, replayed",
  'src/infra/redis': 'Redis connections and the broadcast channel',
  'src/infra/validation': 'Ajv presets for our own schemas and types derived from them',
  'src/ingest': 'feature: validates and enqueues events (HTTP, OTLP)',
  'src/mcp': 'adapter at the edge: the MCP server at /mcp, over the services behind the REST routes',
  'src/registry': 'feature: tools, versions, warnings, which version each caller is served',
  'src/registry/guard': 'the guard section served with a tool (policy, learned renames and limits) and its policy routes',
  'src/registry/quality': "each tool's own definition judged (description, properties, near-duplicate tools)",
  'src/registry/serving': 'live descriptions served from memory, ETags, the tool list in pages, canary assignment',
  'src/registry/tools': 'registration: tool definitions, schema admission and budgets, versions, warnings by hand',
  'src/registry/validate': "POST /v1/tools/:name/validate: a call's arguments checked against the served tool",
  'src/retention': 'feature: deletes what is past its retention',
  'src/rollout': 'decision layer above the registry: canary policy, looks, promote and roll back',
  'src/statistics': 'pure core: effect and proportion statistics',
  'src/tenancy': 'shared: projects, API keys, rate limits',
};
/** The composition root wires every part together, so it alone may import the dashboard. */
const COMPOSITION_ROOT = ['src/main.ts', 'src/app.module.ts', 'src/app.factory.ts'];

interface ForbiddenArrow {
  from: string;
  /** Whether an import of this repository path (repo-relative, no extension) is forbidden from `from`. */
  forbids: (target: string) => boolean;
  why: string;
}

const isIn = (path: string, folder: string) => path === folder || path.startsWith(`${folder}/`);

const FORBIDDEN_ARROWS: ForbiddenArrow[] = [
  { from: 'src/diagnosis', forbids: (target) => !isIn(target, 'src/diagnosis'), why: 'the pure core imports nothing of ours' },
  { from: 'src/statistics', forbids: (target) => !isIn(target, 'src/statistics'), why: 'the pure core imports nothing of ours' },
  {
    from: 'src/registry',
    forbids: (target) => isIn(target, 'src/rollout') || isIn(target, 'src/analytics'),
    why: 'which version a caller is served belongs to the registry; rollout and analytics build on it',
  },
  {
    from: 'src/rollout',
    forbids: (target) => isIn(target, 'src/analytics'),
    why: 'rollout is a thin decision layer above the registry; the nightly (analytics) calls it',
  },
  {
    from: 'src/dashboard',
    forbids: (target) => isIn(target, 'src/ingest') || isIn(target, 'src/categorize'),
    why: 'the dashboard only reads',
  },
  {
    from: 'packages/core',
    forbids: (target) => !isIn(target, 'packages/core'),
    why: 'the guard core (@toolcoach/core) is pure and imports only itself: the server, the SDK and the gateway share it',
  },
  {
    from: 'sdk',
    forbids: (target) => isIn(target, 'src') || isIn(target, 'packages'),
    why: 'the SDK ships without the server; it imports the guard core as @toolcoach/core, which its build bundles',
  },
  {
    from: 'mcp-gateway',
    forbids: (target) => isIn(target, 'src') || isIn(target, 'sdk'),
    why: 'the gateway ships alone: it reaches the server over HTTP and the SDK as its package (@toolcoach/sdk)',
  },
  {
    from: 'src/infra',
    forbids: (target) => FEATURES.some((feature) => isIn(target, feature)),
    why: 'shared infrastructure knows no feature',
  },
  {
    from: 'src/ingest',
    forbids: (target) => FEATURES.some((feature) => feature !== 'src/ingest' && isIn(target, feature)),
    why: 'ingest validates and enqueues; the worker does the rest',
  },
  ...FEATURES.filter((feature) => feature !== 'src/dashboard').map((feature) => ({
    from: feature,
    forbids: (target: string) => isIn(target, 'src/dashboard'),
    why: 'nothing builds on the dashboard; it is a reader at the edge',
  })),
  ...FEATURES.map((feature) => ({
    from: feature,
    forbids: (target: string) => isIn(target, 'src/mcp'),
    why: 'nothing builds on the MCP server; it is an adapter at the edge',
  })),
];

interface SourceFile {
  /** Repo-relative, with forward slashes. */
  path: string;
  text: string;
}

/** "file -> import (why)" for every import that draws a forbidden arrow. */
function forbiddenImports(files: readonly SourceFile[]): string[] {
  const violations: string[] = [];
  for (const file of files) {
    const arrows = FORBIDDEN_ARROWS.filter((arrow) => isIn(file.path, arrow.from) && !COMPOSITION_ROOT.includes(file.path));
    if (arrows.length === 0) continue;
    for (const specifier of importedFiles(file.text)) {
      // only relative specifiers name our own files; packages are not parts of this repository
      if (!specifier.startsWith('.')) continue;
      const target = posix.normalize(posix.join(posix.dirname(file.path), specifier)).replace(/\.(js|ts)$/, '');
      for (const arrow of arrows) if (arrow.forbids(target)) violations.push(`${file.path} -> ${specifier} (${arrow.why})`);
    }
  }
  return violations;
}

function importedFiles(text: string): string[] {
  return ts.preProcessFile(text, true, true).importedFiles.map((reference) => reference.fileName);
}

function sourceFilesUnder(folder: string): SourceFile[] {
  const files: SourceFile[] = [];
  const visit = (directory: string) => {
    for (const entry of readdirSync(directory, { withFileTypes: true })) {
      const path = join(directory, entry.name);
      if (entry.isDirectory() && !['node_modules', 'dist', 'generated'].includes(entry.name)) visit(path);
      else if (entry.isFile() && /\.(ts|js|mjs|cjs)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) {
        files.push({ path: relative(REPO_ROOT, path).split('\\').join('/'), text: readFileSync(path, 'utf8') });
      }
    }
  };
  visit(join(REPO_ROOT, folder));
  return files;
}

describe('architecture', () => {
  it('has no import that draws a forbidden arrow between parts', () => {
    const files = [
      ...sourceFilesUnder('src'),
      ...sourceFilesUnder('sdk/src'),
      ...sourceFilesUnder('sdk/test'),
      ...sourceFilesUnder('mcp-gateway/src'),
      ...sourceFilesUnder('mcp-gateway/test'),
      ...sourceFilesUnder('packages/core'),
    ];
    expect(files.filter((file) => isIn(file.path, 'packages/core/src')).length).toBeGreaterThan(5);
    expect(files.length).toBeGreaterThan(100);
    expect(files.filter((file) => isIn(file.path, 'mcp-gateway')).length).toBeGreaterThan(5);
    expect(forbiddenImports(files)).toEqual([]);
  });

  it.each([
    ['src/diagnosis/categorizer.ts', "import { ApiError } from '../infra/http/api-error';"],
    ['src/diagnosis/fingerprint.ts', "export { x } from '../registry/registry.types';"],
    ['src/dashboard/stats.controller.ts', "import type { AcceptedEvent } from '../ingest/event-normalizer';"],
    ['src/dashboard/error-group.queries.ts', "const rows = require('../categorize/categorize.repository');"],
    ['sdk/src/reporter.ts', "const wire = await import('../../src/ingest/event.schemas');"],
    ['mcp-gateway/src/call-event.ts', "import type { AcceptedEvent } from '../../src/ingest/event-normalizer';"],
    ['mcp-gateway/test/call-event.spec.ts', "import { Toolcoach } from '../../sdk/src/client';"],
    ['src/infra/http/openapi/openapi.document.ts', "import { eventSchema } from '../../../ingest/event.schemas';"],
    ['src/ingest/ingest.service.ts', "import { CategorizeService } from '../categorize/categorize.service';"],
    ['src/registry/tools.controller.ts', "import { toErrorGroupView } from '../dashboard/error-group-view';"],
    ['src/registry/serving/description.service.ts', "import { servedVersionOf } from '../../rollout/canary-assignment';"],
    ['src/rollout/canary-sides.ts', "import type { Proportion } from '../analytics/effect-statistics';"],
    ['src/statistics/effect-statistics.ts', "import { DAY_MS } from '../analytics/analytics-day';"],
    ['packages/core/src/guard-verdict.ts', "import { ownValue } from '../../../src/diagnosis/own-value';"],
    ['sdk/src/argument-guard.ts', "import { guardVerdict } from '../../packages/core/src/guard-verdict';"],
  ])('refuses %s importing what its part must not: %s', (path, text) => {
    expect(forbiddenImports([{ path, text }])).toHaveLength(1);
  });

  it("names every folder of src/ here and in docs/architecture.md's Folders table", () => {
    const foldersUnder = (folder: string): string[] =>
      readdirSync(join(REPO_ROOT, folder), { withFileTypes: true })
        .filter((entry) => entry.isDirectory())
        .flatMap((entry) => {
          const path = `${folder}/${entry.name}`;
          return path === 'src/generated' ? [path] : [path, ...foldersUnder(path)];
        });
    const folders = foldersUnder('src').sort();
    expect(folders).toEqual(Object.keys(FOLDERS).sort());
    const page = readFileSync(join(REPO_ROOT, 'docs', 'architecture.md'), 'utf8');
    const tableRows = page.split('\n').filter((line) => line.startsWith('| `src/'));
    const described = tableRows.map((row) => /^\| `([^`]+)` \| (.*) \|$/.exec(row)!.slice(1, 3) as [string, string]);
    expect(Object.fromEntries(described)).toEqual(FOLDERS);
  });

  it('makes node-postgres clients and pools in one module only, where each gets its connection-error listener', () => {
    // an unheard 'error' event of a pg client ends the process (issue 33: a Postgres restart under load did)
    const makersOfPgConnections = sourceFilesUnder('src')
      .filter((file) => /^import (?!type )[^;]*from 'pg';/m.test(file.text))
      .map((file) => file.path);
    expect(makersOfPgConnections).toEqual(['src/infra/prisma/pg-connections.ts']);
  });

  it('allows what the parts may import: infra, config, diagnosis, a service another feature exports, packages', () => {
    const allowed: SourceFile[] = [
      { path: 'src/diagnosis/categorizer.ts', text: "import { finding } from './finding';\nimport Ajv from 'ajv';" },
      {
        path: 'src/dashboard/stats.service.ts',
        text: "import { CATEGORIES } from '../diagnosis';\nimport { encodeCursor } from '../infra/http/cursor';",
      },
      { path: 'src/categorize/categorize.service.ts', text: "import { RegistryService } from '../registry/registry.service';" },
      { path: 'src/app.module.ts', text: "import { DashboardModule } from './dashboard/dashboard.module';" },
      { path: 'sdk/src/reporter.ts', text: "import { redact } from './redaction';" },
      { path: 'sdk/src/argument-guard.ts', text: "import { guardVerdict } from '@toolcoach/core';" },
      { path: 'src/registry/validate/argument-check.ts', text: "import { describeSchemaErrors } from '@toolcoach/core';" },
      { path: 'packages/core/src/guard-verdict.ts', text: "import { correctArguments } from './argument-findings';" },
      {
        path: 'mcp-gateway/src/mcp-relay.ts',
        text: "import { Toolcoach } from '@toolcoach/sdk';\nimport { toCallEvent } from './call-event';",
      },
      { path: 'mcp-gateway/test/call-event.spec.ts', text: "import { toCallEvent } from '../src/call-event';" },
    ];
    expect(forbiddenImports(allowed)).toEqual([]);
  });
});
