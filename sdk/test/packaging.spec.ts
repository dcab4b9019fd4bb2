import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

// @toolcoach/sdk installs with no other package of ours: its build bundles the guard core (@toolcoach/core, never
// published) into dist/core and points its compiled files there. Reads the built dist (npm test's pretest builds it).
const SDK_DIR = join(__dirname, '..');

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
});

describe('the framework integrations of the packed SDK', () => {
  const manifest = JSON.parse(readFileSync(join(SDK_DIR, 'package.json'), 'utf8')) as {
    exports: Record<string, { default?: string }>;
    peerDependencies: Record<string, string>;
    peerDependenciesMeta: Record<string, { optional?: boolean }>;
  };

  it('declares every framework it integrates with as an optional peer, so that it installs with ajv alone', () => {
    expect(Object.keys(manifest.peerDependencies)).toEqual(expect.arrayContaining(['@langchain/core', '@openai/agents']));
    for (const name of Object.keys(manifest.peerDependencies))
      expect([name, manifest.peerDependenciesMeta[name]?.optional]).toEqual([name, true]);
  });

  it('loads the OpenAI Agents SDK only from its own entry point, @toolcoach/sdk/openai-agents', () => {
    expect(manifest.exports['./openai-agents']).toEqual({ types: './dist/openai-agents.d.ts', default: './dist/openai-agents.js' });
    const requiring = readdirSync(join(SDK_DIR, 'dist'))
      .filter((file) => file.endsWith('.js'))
      .filter((file) => /require\("@openai\/agents/.test(readFileSync(join(SDK_DIR, 'dist', file), 'utf8')));
    expect(requiring).toEqual(['openai-agents.js']);
  });
});
