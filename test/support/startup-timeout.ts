/**
 * The environment of the agents and gateways these tests start against a running app: their start-up calls
 * (registration, the first description load) wait 20 s instead of the SDKs' 2 s default. On a loaded 2-core CI box a
 * registration took longer than 2 s, the fallback then served the tools unregistered, and the test's later checks of
 * versions failed for a reason that is not the one under test. Tests of the fallback itself set their own timeouts.
 * startup-timeout-env.ts puts it in every integration file's process.env (in-process clients and most spawns); the
 * spawns that build their environment from scratch add it themselves.
 */
export const TEST_STARTUP_TIMEOUT_ENV = { TOOLCOACH_STARTUP_TIMEOUT_MS: '20000' } as const;
