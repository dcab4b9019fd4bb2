#!/bin/sh
# How a toolcoach process starts: `npm start` runs this file, and so does the bench (bench/lib/harness.mjs), so what is
# measured is what runs. Arguments before the entry point go to node (e.g. --cpu-prof); the environment passes through.
#
# Memory (issue 18; measured under `npm run bench -- ingest`, API role, 2 cores):
# - MALLOC_ARENA_MAX=2: glibc gives each thread that allocates (V8's compiler and GC threads, libuv's pool) an arena of
#   its own, ~80 MB of mostly idle memory; two arenas keep 25-30 MB of it. glibc reads it only when the process starts,
#   hence here and not in main.ts. A value already in the environment wins.
# - --heap-growing-percent=100: after a full GC, V8 lets the heap grow to up to 4x what was live before the next one;
#   under ingest load that took a ~50 MB live heap to 160 MB (API peak RSS 325-370 MB; 295-330 MB with two arenas).
#   2x keeps the peak near 275 MB for a full GC every few seconds (~25 ms each). 1.5x kept 235-250 MB but made the
#   dashboard's 30-day reads, which allocate much, slower; 2x did not measurably.
if [ "${1:-}" = "--help" ] || [ "${1:-}" = "-h" ]; then
  cat <<'USAGE'
usage: npm start [-- node options]     (the server: API, worker and scheduler; docs/getting-started.md)
compiles what changed, migrates the database (creating it if missing), then serves on PORT (default 3000); options
before the entry point go to node (e.g. --cpu-prof)
environment: every setting is an environment variable, checked at start (docs/configuration.md): DATABASE_URL,
  DATABASE_READ_URL, REDIS_URL, REDIS_CLUSTER_NODES, PORT, HOST, ROLES, LOG_LEVEL, NODE_ENV, TOOLCOACH_DEV_KEY, QUEUE_PREFIX,
  WORKER_CONCURRENCY, WORKER_GROUP_MAX_BATCHES, WORKER_GROUP_MAX_EVENTS, WORKER_GROUP_WAIT_MS, WORKER_STUCK_AFTER_MS,
  JOB_ATTEMPTS, WORKER_LOCK_DURATION_MS, MIGRATE_ON_START, SHUTDOWN_TIMEOUT_MS, NIGHTLY_CRON, NIGHTLY_TIME_ZONE, RETENTION_CRON,
  ALERT_EVALUATION_INTERVAL_MS, RATE_LIMIT_REQUESTS, RATE_LIMIT_WINDOW_SECONDS, AUTH_CACHE_TTL_MS,
  AUTH_FAILURES_PER_MINUTE, MAX_TOOLS_PER_PROJECT, TRUST_PROXY, WORKER_MAX_STALLED_COUNT, DEAD_LETTER_RETENTION_DAYS,
  DEAD_LETTER_MAX_PER_PROJECT, DEAD_LETTER_MAX_MB_PER_PROJECT, ALERT_ALLOW_PRIVATE_DESTINATIONS, ALERT_DELIVERY_ATTEMPTS,
  ALERT_DELIVERY_BACKOFF_MS; MALLOC_ARENA_MAX (default 2) and NODE (the node binary) for this script
USAGE
  exit 0
fi
export MALLOC_ARENA_MAX="${MALLOC_ARENA_MAX:-2}"
cd "$(dirname "$0")/.." || exit 1
exec "${NODE:-node}" --heap-growing-percent=100 "$@" dist/src/main.js
