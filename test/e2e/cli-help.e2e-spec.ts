import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

// Every command the docs show answers --help with its usage, on stdout, with status 0, before it reaches a database,
// a server or the network, and the usage names every option and variable the command reads (found in its source, so
// a new one that the usage forgets fails here). The commands run as built: `npm run pretest` compiled them.
const ROOT = join(__dirname, '..', '..');
const source = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const unique = (names: Iterable<string>) => [...new Set(names)].sort();

async function help(command: string, args: string[]): Promise<string> {
  // no database, Redis or server answers at these addresses: a command that tried one would fail or hang
  const env = {
    ...process.env,
    DATABASE_URL: 'postgresql://nobody@127.0.0.1:9/none',
    REDIS_URL: 'redis://127.0.0.1:9',
    TOOLCOACH_URL: 'http://127.0.0.1:9',
  };
  const { stdout } = await promisify(execFile)(command, args, { cwd: ROOT, env, timeout: 20_000 });
  expect(stdout).toMatch(/^usage: /);
  return stdout;
}

/** The names of process.env.X reads in these files. */
function variablesReadBy(...paths: string[]): string[] {
  return unique(paths.flatMap((path) => [...source(path).matchAll(/process\.env\.([A-Z][A-Z0-9_]+)/g)].map((match) => match[1])));
}

describe('every command answers --help with usage listing all it reads', () => {
  it('toolcoach-mcp (the gateway, through the bin npm links): every flag, --host included, and every variable', async () => {
    const usage = await help(process.execPath, ['mcp-gateway/bin/toolcoach-mcp.js', '--help']);
    const config = source('mcp-gateway/src/gateway-config.ts');
    const flags = unique([...config.matchAll(/'(--[a-z-]+)'/g)].map((match) => match[1]));
    expect(flags).toEqual(expect.arrayContaining(['--host', '--port', '--upstream-url', '--env', '--check-arguments', '--help']));
    expect(flags.filter((flag) => !usage.includes(flag))).toEqual([]);
    const variables = unique([...config.matchAll(/env\.([A-Z][A-Z0-9_]+)/g)].map((match) => match[1]));
    expect(variables.filter((name) => !usage.includes(name))).toEqual([]);
    expect(usage).toContain('-h, --help');
  });

  it('npm run cli -- --help (and help, -h): every command, without a database', async () => {
    const usage = await help(process.execPath, ['dist/src/cli.js', '--help']);
    const commands = unique([...source('src/cli.ts').matchAll(/case '([a-z-]+:[a-z-]+)'/g)].map((match) => match[1]));
    expect(commands).toHaveLength(7);
    expect(commands.filter((command) => !usage.includes(command))).toEqual([]);
    expect(await help(process.execPath, ['dist/src/cli.js', 'help'])).toBe(usage);
    expect(await help(process.execPath, ['dist/src/cli.js', '-h'])).toBe(usage);
  });

  it('npm run migrate -- --help, without a database', async () => {
    expect(await help(process.execPath, ['dist/src/infra/prisma/migrate.cli.js', '--help'])).toContain('DATABASE_URL');
  });

  it('npm start -- --help: every setting of the environment the server checks at start', async () => {
    const usage = await help('sh', ['scripts/start.sh', '--help']);
    const config = source('src/config/config.ts');
    const schema = config.slice(config.indexOf('const envSchema'));
    const settings = unique([...schema.slice(0, schema.indexOf('\n};')).matchAll(/^ {4}([A-Z][A-Z0-9_]+):/gm)].map((match) => match[1]));
    expect(settings.length).toBeGreaterThan(30);
    expect(settings.filter((name) => !new RegExp(`\\b${name}\\b`).test(usage))).toEqual([]);
  });

  it('npm run demo -- --help: every variable it reads, without a server', async () => {
    const usage = await help(process.execPath, ['scripts/demo.js', '--help']);
    const demo = source('scripts/demo.js');
    const variables = unique([...demo.matchAll(/'(TOOLCOACH_[A-Z_]+)'/g)].map((match) => match[1]));
    expect(variables).toEqual(['TOOLCOACH_API_KEY', 'TOOLCOACH_BASE_URL', 'TOOLCOACH_DEV_KEY', 'TOOLCOACH_URL']);
    expect(variables.filter((name) => !usage.includes(name))).toEqual([]);
  });

  it('npm run bench -- --help: every scenario and every variable the harness reads', async () => {
    const usage = await help(process.execPath, ['bench/run.mjs', '--help']);
    const scenarios = /const SCENARIOS = \[([^\]]*)\]/.exec(source('bench/run.mjs'))![1].match(/[a-z-]+/g)!;
    expect(scenarios.filter((name) => !usage.includes(name))).toEqual([]);
    const scenarioFiles = readdirSync(join(ROOT, 'bench', 'scenarios')).map((file) => `bench/scenarios/${file}`);
    const variables = variablesReadBy('bench/run.mjs', 'bench/lib/harness.mjs', ...scenarioFiles);
    expect(variables.filter((name) => !usage.includes(name))).toEqual([]);
  });

  it.each([
    ['bench/sdk-hook.bench.js', ['bench/sdk-hook.bench.js']],
    ['bench/mcp-gateway.bench.js', ['bench/mcp-gateway.bench.js']],
    ['bench/ingest-cpu.mjs', ['bench/ingest-cpu.mjs']],
  ])('%s --help: its arguments and every variable it reads', async (script, readers) => {
    const usage = await help(process.execPath, [script, '--help']);
    expect(variablesReadBy(...readers).filter((name) => !usage.includes(name))).toEqual([]);
    if (/process\.argv\[2\]/.test(source(script))) expect(usage).toMatch(/arguments:/);
  });
});
