import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

// @toolcoach/sdk installs with no other package of ours: its build bundles the guard core (@toolcoach/core, never
// published) into dist/core and points its compiled files there. Reads the built dist (npm test's pretest builds it).
const SDK_DIR = join(__dirname, '..');

/**
 * Each framework the SDK integrates with and the only compiled files that may load it. LangChain's integration is
 * duck-typed; the guard loads @langchain/core's message classes lazily, only when it wraps a LangChain tool.
 */
const INTEGRATIONS: Record<string, string[]> = {
  '@langchain/core': ['guarded-tool.js'],
  ai: ['ai.js'],
  '@openai/agents': ['openai-agents.js'],
};

function requiresPackage(code: string, name: string): boolean {
  const quoted = name.replace(/[/@.]/g, (char) => `\\${char}`);
  return new RegExp(`(?:require\\(|import\\()["']${quoted}(?:/[^"']*)?["']`).test(code);
}

describe('the packed SDK', () => {
  const manifest = JSON.parse(readFileSync(join(SDK_DIR, 'package.json'), 'utf8')) as Record<string, Record<string, string> | undefined>;
  const [packed] = JSON.parse(
    execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: SDK_DIR, encoding: 'utf8' }),
  ) as Array<{ files: Array<{ path: string }> }>;
  const files = packed.files.map((file) => file.path);

  it('ships the guard core inside dist', () => {
    expect(files).toEqual(expect.arrayContaining(['dist/core/index.js', 'dist/core/index.d.ts', 'dist/core/guard-verdict.js']));
  });

  it('depends on no package of ours', () => {
    const dependencies = { ...manifest.dependencies, ...manifest.peerDependencies, ...manifest.optionalDependencies };
    expect(Object.keys(dependencies).filter((name) => name.startsWith('@toolcoach/'))).toEqual([]);
  });

  it('requires the bundled core by a relative path only', () => {
    for (const file of files.filter((path) => /^dist\/[^/]+\.(js|d\.ts)$/.test(path))) {
      expect(readFileSync(join(SDK_DIR, file), 'utf8')).not.toMatch(/(?:require\(|from |import\()["']@toolcoach\/core["']/);
    }
  });

  it('installs with ajv alone: the frameworks it integrates with are optional peers', () => {
    expect(manifest.dependencies).toEqual({ ajv: expect.any(String) });
    expect(manifest.optionalDependencies).toBeUndefined();
    expect(Object.keys(manifest.peerDependencies ?? {}).sort()).toEqual(Object.keys(INTEGRATIONS).sort());
    for (const peer of Object.keys(manifest.peerDependencies ?? {})) {
      expect([peer, (manifest.peerDependenciesMeta as unknown as Record<string, { optional?: boolean }>)[peer]]).toEqual([
        peer,
        { optional: true },
      ]);
    }
  });

  it.each(Object.entries(INTEGRATIONS))('loads %s only from its own entry point', (peer, allowed) => {
    const loading = readdirSync(join(SDK_DIR, 'dist'))
      .filter((file) => file.endsWith('.js'))
      .filter((file) => requiresPackage(readFileSync(join(SDK_DIR, 'dist', file), 'utf8'), peer));
    expect(loading).toEqual(allowed);
  });
});
