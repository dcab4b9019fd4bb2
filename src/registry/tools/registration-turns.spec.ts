import { RegistrationTurns } from './registration-turns';

describe('RegistrationTurns', () => {
  /** A piece of work the test finishes when it wants, and whether it has started. */
  const gate = () => {
    let open!: () => void;
    const opened = new Promise<void>((resolve) => (open = resolve));
    const state = { isStarted: false };
    return { state, open, work: async () => ((state.isStarted = true), await opened, 'done') };
  };

  it("runs one request of a project at a time, in order, and other projects' at once", async () => {
    const turns = new RegistrationTurns(8);
    const [first, second, other] = [gate(), gate(), gate()];
    const firstRun = turns.run('a', first.work);
    const secondRun = turns.run('a', second.work);
    const otherRun = turns.run('b', other.work);
    await new Promise((resolve) => setImmediate(resolve));
    expect([first.state.isStarted, second.state.isStarted, other.state.isStarted]).toEqual([true, false, true]);
    first.open();
    expect(await firstRun).toEqual({ value: 'done' });
    await new Promise((resolve) => setImmediate(resolve));
    expect(second.state.isStarted).toBe(true);
    second.open();
    other.open();
    expect(await Promise.all([secondRun, otherRun])).toEqual([{ value: 'done' }, { value: 'done' }]);
  });

  it('refuses a request when the project already has the most waiting, and frees the line after a failure', async () => {
    const turns = new RegistrationTurns(1);
    const running = gate();
    const runningRun = turns.run('a', running.work);
    const waitingRun = turns.run('a', async () => 'waited');
    expect(await turns.run('a', async () => 'refused')).toBeNull();
    running.open();
    await runningRun;
    expect(await waitingRun).toEqual({ value: 'waited' });
    await expect(turns.run('a', async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await turns.run('a', async () => 'after')).toEqual({ value: 'after' });
  });
});
