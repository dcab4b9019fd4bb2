import { EventEmitter } from 'node:events';
import { isStuck, trackProgress } from './worker-watchdog';

describe('isStuck', () => {
  const idleSince = (ms: number) => ({ inFlight: 0, lastProgressAt: 1_000_000 - ms });
  const NOW = 1_000_000;

  it('says a worker is stuck when jobs wait in an unpaused queue and it ran none for the whole window', () => {
    expect(isStuck(idleSince(30_000), { waiting: 3, isPaused: false }, NOW, 30_000)).toBe(true);
  });

  it.each([
    ['it showed progress within the window', idleSince(29_999), { waiting: 3, isPaused: false }, 30_000],
    ['nothing waits', idleSince(60_000), { waiting: 0, isPaused: false }, 30_000],
    ['the queue is paused on purpose', idleSince(60_000), { waiting: 3, isPaused: true }, 30_000],
    ['it runs a long job', { inFlight: 1, lastProgressAt: NOW - 600_000 }, { waiting: 3, isPaused: false }, 30_000],
    ['the watchdog is off', idleSince(600_000), { waiting: 3, isPaused: false }, 0],
  ])('says it is not stuck when %s', (_name, progress, backlog, stuckAfterMs) => {
    expect(isStuck(progress, backlog, NOW, stuckAfterMs)).toBe(false);
  });
});

describe('trackProgress', () => {
  it('counts jobs in flight and moves the last progress on every event', () => {
    let now = 0;
    const worker = new EventEmitter();
    const progress = trackProgress(worker, () => now);
    now = 10;
    worker.emit('active');
    worker.emit('active');
    expect(progress).toEqual({ inFlight: 2, lastProgressAt: 10 });
    now = 20;
    worker.emit('completed');
    worker.emit('failed');
    worker.emit('failed');
    expect(progress).toEqual({ inFlight: 0, lastProgressAt: 20 });
    now = 30;
    worker.emit('drained');
    expect(progress).toEqual({ inFlight: 0, lastProgressAt: 30 });
  });
});
