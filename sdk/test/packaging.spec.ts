import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
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

  it('installs with ajv alone: every framework it integrates with is an optional peer', () => {
    expect(Object.keys(manifest.dependencies ?? {})).toEqual(['ajv']);
    const peers = Object.keys(manifest.peerDependencies ?? {});
    expect(peers).toEqual(expect.arrayContaining(['@langchain/core', '@mastra/core', '@llamaindex/workflow', 'llamaindex']));
    const optional = manifest.peerDependenciesMeta as unknown as Record<string, { optional?: boolean }>;
    for (const peer of peers) expect([peer, optional[peer]?.optional]).toEqual([peer, true]);
  });

  it.each(['mastra', 'llamaindex'])('loads nothing of its framework when @toolcoach/sdk/%s is imported', (entry) => {
    const script = `require('@toolcoach/sdk/${entry}'); process.stdout.write(JSON.stringify(Object.keys(require.cache)))`;
    const loaded = JSON.parse(execFileSync(process.execPath, ['-e', script], { cwd: SDK_DIR, encoding: 'utf8' })) as string[];
    expect(loaded.filter((path) => /[/\\]node_modules[/\\](@mastra|@llamaindex|llamaindex)[/\\]/.test(path))).toEqual([]);
    expect(loaded).toContain(join(SDK_DIR, 'dist', `${entry}.js`));
  });
});
