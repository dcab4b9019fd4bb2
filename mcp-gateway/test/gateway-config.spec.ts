import { isAskingForHelp, MAX_UPSTREAMS, parseUpstreams, readGatewayConfig, SWITCHES, USAGE, VALUE_FLAGS } from '../src/gateway-config';

describe('several upstreams combined', () => {
  const file = JSON.stringify({
    mcpServers: {
      math: { command: 'node', args: ['math.js'], env: { MODE: 'fast' } },
      docs: { url: 'http://127.0.0.1:8123/mcp' },
    },
  });

  it('reads the upstreams file named by --upstreams, in its order, with --prefix-names', () => {
    const config = readGatewayConfig(['--upstreams', 'up.json', '--prefix-names'], {}, (path) => (path === 'up.json' ? file : ''));
    expect(config.upstreams).toEqual([
      { name: 'math', command: ['node', 'math.js'], env: { MODE: 'fast' } },
      { name: 'docs', url: 'http://127.0.0.1:8123/mcp' },
    ]);
    expect(config.isPrefixingNames).toBe(true);
    expect(config.upstreamCommand).toEqual([]);
  });

  it('takes TOOLCOACH_UPSTREAMS and TOOLCOACH_PREFIX_NAMES; prefixing is off unless asked', () => {
    const read = () => file;
    expect(readGatewayConfig([], { TOOLCOACH_UPSTREAMS: 'up.json', TOOLCOACH_PREFIX_NAMES: '1' }, read).isPrefixingNames).toBe(true);
    expect(readGatewayConfig([], { TOOLCOACH_UPSTREAMS: 'up.json' }, read).isPrefixingNames).toBe(false);
  });

  it('refuses a second way of naming upstreams, and a file that is not JSON, in one error', () => {
    expect(() => readGatewayConfig(['--upstreams', 'up.json', '--', 'node', 'x.js'], {}, () => '{nope')).toThrow(
      /name the upstreams one way.*\nupstreams file "up.json": .*JSON/s,
    );
  });

  it('lists every problem of an upstreams file, each naming its upstream', () => {
    const { upstreams, problems } = parseUpstreams({
      mcpServers: {
        ok: { command: 'node' },
        both: { command: 'node', url: 'http://x/mcp' },
        neither: {},
        'bad name': { url: 'http://x/mcp' },
        badurl: { url: 'not a url' },
        badargs: { command: 'node', args: [1] },
        badenv: { command: 'node', env: { A: 1 } },
      },
    });
    expect(upstreams).toEqual([{ name: 'ok', command: ['node'], env: {} }]);
    expect(problems).toEqual([
      'mcpServers."both": give "command" or "url", one of them',
      'mcpServers."neither": give "command" or "url", one of them',
      `mcpServers."bad name": a name is 1 to 32 letters, digits or '-'`,
      'mcpServers."badurl": "url" is not a URL',
      'mcpServers."badargs": "args" must be a list of strings',
      'mcpServers."badenv": "env" must map names to strings',
    ]);
  });

  it(`refuses an empty file and more than ${MAX_UPSTREAMS} upstreams`, () => {
    expect(parseUpstreams({ mcpServers: {} }).problems).toHaveLength(1);
    const many = Object.fromEntries(Array.from({ length: MAX_UPSTREAMS + 1 }, (_, i) => [`u${i}`, { command: 'node' }]));
    const parsed = parseUpstreams({ mcpServers: many });
    expect(parsed.problems).toEqual([`at most ${MAX_UPSTREAMS} upstreams, got ${MAX_UPSTREAMS + 1}`]);
    expect(parsed.upstreams).toHaveLength(MAX_UPSTREAMS);
  });
});

describe('--help and the usage', () => {
  it('is asked for by --help or -h before "--", not by an upstream argument after it', () => {
    expect(isAskingForHelp(['--help'])).toBe(true);
    expect(isAskingForHelp(['--upstream-url', 'http://x/mcp', '-h'])).toBe(true);
    expect(isAskingForHelp(['--', 'npx', 'some-server', '--help'])).toBe(false);
    expect(isAskingForHelp(['--check-arguments', '--', 'node', 'server.js'])).toBe(false);
  });

  it('lists every option the gateway reads, --host included', () => {
    const listed = [...USAGE.matchAll(/(?<![\w-])--?[a-z][a-z-]*/g)].map((match) => match[0]);
    expect([...VALUE_FLAGS, ...SWITCHES, '--env'].filter((flag) => !listed.includes(flag))).toEqual([]);
    expect(USAGE).toContain('--host <address>');
  });

  it('takes --host and --port for the Streamable HTTP gateway, 127.0.0.1 unless told', () => {
    const config = readGatewayConfig(['--upstream-url', 'http://127.0.0.1:8123/mcp', '--port', '4100', '--host', '0.0.0.0'], {});
    expect([config.listenHost, config.listenPort]).toEqual(['0.0.0.0', 4100]);
    expect(readGatewayConfig(['--upstream-url', 'http://127.0.0.1:8123/mcp'], {}).listenHost).toBe('127.0.0.1');
  });

  it('still refuses an option it does not know, with the usage', () => {
    expect(() => readGatewayConfig(['--hots', 'x', '--', 'node'], {})).toThrow(
      /unknown or incomplete option "--hots"[\s\S]*usage: toolcoach-mcp/,
    );
  });
});
