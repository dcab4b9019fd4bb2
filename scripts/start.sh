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
export MALLOC_ARENA_MAX="${MALLOC_ARENA_MAX:-2}"
cd "$(dirname "$0")/.." || exit 1
exec "${NODE:-node}" --heap-growing-percent=100 "$@" dist/src/main.js
