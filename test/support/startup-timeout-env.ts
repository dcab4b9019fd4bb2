import { TEST_STARTUP_TIMEOUT_ENV } from './startup-timeout';

// Every integration and end-to-end file: the SDK clients it makes in process, and the agents and gateways it spawns
// with this environment, wait TEST_STARTUP_TIMEOUT_ENV's time at start-up unless a test sets its own (tests of the
// fallback pass `startupTimeoutMs` / `timeout_s` explicitly, which wins). A run that sets the variable keeps its value.
process.env.TOOLCOACH_STARTUP_TIMEOUT_MS ??= TEST_STARTUP_TIMEOUT_ENV.TOOLCOACH_STARTUP_TIMEOUT_MS;
