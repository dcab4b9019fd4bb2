import { UnrecoverableError } from 'bullmq';
import { JobName } from './queue.names';
import { payloadOf } from './queue.jobs';

const batch = {
  projectId: '0b6c6f9e-5f1e-4a8a-9a51-6f3f2a1f0c11',
  receivedAt: '2026-05-01T10:00:00.000Z',
  events: [{ id: 'e1', tool: 'search', status: 'success', occurredAt: '2026-05-01T09:59:59.000Z' }],
};

describe('payloadOf', () => {
  it('answers the payload of a job whose name and data match its row in JOBS', () => {
    expect(payloadOf(JobName.CategorizeBatch, { name: JobName.CategorizeBatch, data: batch })).toBe(batch);
    expect(payloadOf(JobName.NightlyRun, { name: JobName.NightlyRun, data: { day: '2026-05-01' } })).toEqual({ day: '2026-05-01' });
  });

  it.each([
    ['a batch without events', { ...batch, events: [] }, '/events must NOT have fewer than 1 items'],
    [
      'an event without a status',
      { ...batch, events: [{ id: 'e1', tool: 't', occurredAt: 'x' }] },
      "/events/0 must have required property 'status'",
    ],
    ['a receivedAt that is not an instant', { ...batch, receivedAt: 'yesterday' }, '/receivedAt must match format "date-time"'],
    ['no object at all', 'nothing', '/ must be object'],
    [
      'an event whose duration is no number',
      { ...batch, events: [{ ...batch.events[0], durationMs: 'slow' }] },
      '/events/0/durationMs must be number',
    ],
    [
      'an error without its message',
      { ...batch, events: [{ ...batch.events[0], error: { type: 'E' } }] },
      "/events/0/error must have required property 'message'",
    ],
  ])('fails %s at once with UnrecoverableError naming the problem', (_, data, problem) => {
    const parse = () => payloadOf(JobName.CategorizeBatch, { name: JobName.CategorizeBatch, data });
    expect(parse).toThrow(UnrecoverableError);
    expect(parse).toThrow(problem);
  });

  it('fails a job of another name at once', () => {
    expect(() => payloadOf(JobName.NightlyRun, { name: 'not-a-job', data: { day: '2026-05-01' } })).toThrow(
      new UnrecoverableError('unknown job name not-a-job'),
    );
  });
});
