import { Toolcoach } from '../src';
import { DEFAULT_BASE_URL, DEFAULT_STARTUP_TIMEOUT_MS, resolveConnection, resolveStartupTimeout } from '../src/connection-settings';
import { ScriptedServer } from './scripted-server';

describe('resolveConnection', () => {
  it.each([
    [
      'options win over the environment',
      { baseUrl: 'http://a:1', apiKey: 'k1' },
      { TOOLCOACH_URL: 'http://b:2', TOOLCOACH_API_KEY: 'k2' },
      ['http://a:1', 'k1'],
    ],
    ['TOOLCOACH_URL and TOOLCOACH_API_KEY', {}, { TOOLCOACH_URL: 'http://b:2/', TOOLCOACH_API_KEY: 'k2' }, ['http://b:2', 'k2']],
    ['TOOLCOACH_BASE_URL as an alias', {}, { TOOLCOACH_BASE_URL: 'http://c:3' }, ['http://c:3', undefined]],
    ['TOOLCOACH_URL before its alias', {}, { TOOLCOACH_URL: 'http://b:2', TOOLCOACH_BASE_URL: 'http://c:3' }, ['http://b:2', undefined]],
    [
      'empty values count as unset',
      { baseUrl: '', apiKey: ' ' },
      { TOOLCOACH_URL: '', TOOLCOACH_BASE_URL: 'http://c:3' },
      ['http://c:3', undefined],
    ],
    ['the local server when nothing is said', {}, {}, [DEFAULT_BASE_URL, undefined]],
  ])('%s', (_name, options, env, [baseUrl, apiKey]) => {
    expect(resolveConnection(options, env)).toEqual({ baseUrl, apiKey });
  });
});

describe('resolveStartupTimeout', () => {
  it.each([
    ['the option wins over the environment', 500, { TOOLCOACH_STARTUP_TIMEOUT_MS: '9000' }, 500],
    ['TOOLCOACH_STARTUP_TIMEOUT_MS when the code says nothing', undefined, { TOOLCOACH_STARTUP_TIMEOUT_MS: ' 9000 ' }, 9000],
    ['2000 ms when nothing is said', undefined, {}, DEFAULT_STARTUP_TIMEOUT_MS],
  ])('%s', (_name, option, env, timeoutMs) => {
    expect(resolveStartupTimeout(option, env)).toEqual({ timeoutMs });
  });

  it.each(['0', '-5', '1.5', 'soon', '600001', '99999999999'])('ignores TOOLCOACH_STARTUP_TIMEOUT_MS=%j and says why', (text) => {
    const resolved = resolveStartupTimeout(undefined, { TOOLCOACH_STARTUP_TIMEOUT_MS: text });
    expect(resolved.timeoutMs).toBe(DEFAULT_STARTUP_TIMEOUT_MS);
    expect(resolved.problem).toContain('TOOLCOACH_STARTUP_TIMEOUT_MS');
  });
});

describe('Toolcoach without baseUrl and apiKey', () => {
  const saved = { url: process.env.TOOLCOACH_URL, key: process.env.TOOLCOACH_API_KEY };
  let server: ScriptedServer;
  beforeAll(async () => {
    server = await ScriptedServer.start();
  });
  afterEach(() => {
    for (const [name, value] of [
      ['TOOLCOACH_URL', saved.url],
      ['TOOLCOACH_API_KEY', saved.key],
    ] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });
  afterAll(() => server.close());

  it('sends to TOOLCOACH_URL with TOOLCOACH_API_KEY', async () => {
    process.env.TOOLCOACH_URL = server.baseUrl;
    process.env.TOOLCOACH_API_KEY = 'tc_from_env';
    const tc = new Toolcoach({ cacheDir: false, flushOnExit: false, logger: { warn() {} } });
    tc.report({ tool: 'factorial', status: 'success' });
    expect(await tc.shutdown(5000)).toEqual({ isComplete: true, queued: 0 });
    expect(server.requests.at(-1)).toMatchObject({ url: '/v1/events', headers: { authorization: 'Bearer tc_from_env' } });
  });

  it('says once that no key was given, naming the variable', () => {
    delete process.env.TOOLCOACH_API_KEY;
    const warnings: string[] = [];
    const tc = new Toolcoach({ baseUrl: server.baseUrl, cacheDir: false, flushOnExit: false, logger: { warn: (m) => warnings.push(m) } });
    expect(warnings).toEqual([expect.stringContaining('TOOLCOACH_API_KEY')]);
    void tc.shutdown(10);
  });
});
