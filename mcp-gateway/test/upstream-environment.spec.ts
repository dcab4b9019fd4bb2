import { readGatewayConfig } from '../src/gateway-config';
import { upstreamEnvironment } from '../src/upstream-environment';

describe("the upstream's environment", () => {
  const command = ['--', 'node', 'server.js'];

  it('is the default environment plus the configured variables, never a TOOLCOACH_* one', () => {
    const env = upstreamEnvironment({ MODE: 'fast', TOOLCOACH_API_KEY: 'tc_x' }, { Toolcoach_Url: 'http://x', OWN: '1' });
    expect(env).toMatchObject({ MODE: 'fast', OWN: '1', PATH: process.env.PATH });
    expect(Object.keys(env).filter((name) => name.toUpperCase().startsWith('TOOLCOACH_'))).toEqual([]);
    expect(env.JEST_WORKER_ID).toBeUndefined();
  });

  it('takes --env NAME (the gateway value), --env NAME=value and TOOLCOACH_UPSTREAM_ENV; a name the gateway lacks is left out', () => {
    const config = readGatewayConfig(['--env', 'REGION', '--env', 'MODE=a=b', '--env', 'ABSENT', ...command], {
      REGION: 'eu',
      TOOLCOACH_UPSTREAM_ENV: ' LANG , HOME_DIR',
      LANG: 'fr',
      OTHER: 'not passed',
    });
    expect(config.upstreamEnv).toEqual({ REGION: 'eu', MODE: 'a=b', LANG: 'fr' });
  });

  it('refuses TOOLCOACH_* names and names that are not variable names, all in one error', () => {
    expect(() =>
      readGatewayConfig(['--env', 'TOOLCOACH_API_KEY', '--env', 'toolcoach_url=x', '--env', '1BAD', ...command], {
        TOOLCOACH_UPSTREAM_ENV: 'TOOLCOACH_AGENT',
      }),
    ).toThrow(
      /TOOLCOACH_AGENT: TOOLCOACH_\*.*\n.*TOOLCOACH_API_KEY: TOOLCOACH_\*.*\n.*toolcoach_url: TOOLCOACH_\*.*\n--env "1BAD": not a variable name/,
    );
  });
});
