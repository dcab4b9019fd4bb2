import { SetMetadata } from '@nestjs/common';
import type { Job } from 'bullmq';
import { JobName } from './queue.names';
import type { JobPayloads } from './queue.payloads';
import type { JobRun } from './stalled-job-isolation';

export const JOB_HANDLER = 'toolcoach:job-handler';
export const JOB_FAILED_LISTENER = 'toolcoach:job-failed-listener';

/** A method that runs jobs of one name: given the payload already checked against its schema (queue.jobs.ts). */
export type JobHandlerMethod<N extends JobName> = (payload: JobPayloads[N], job: Job, run: JobRun) => Promise<unknown>;

/** A method told of every failed attempt of a job of one name (also attempts BullMQ will retry). */
export type JobFailedListenerMethod = (job: Job, error: Error) => void;

/**
 * Declares the method that runs the jobs of `name`. QueueWorkers finds it at boot (on any provider of the process)
 * and starts one worker per queue that has handlers; a queue whose jobs do not each have exactly one handler fails the
 * boot, naming the job.
 */
export function JobHandler<N extends JobName>(
  name: N,
): <M extends JobHandlerMethod<N>>(target: object, key: string | symbol, descriptor: TypedPropertyDescriptor<M>) => void {
  return SetMetadata(JOB_HANDLER, name);
}

/** Declares a method told of each failed attempt of a job of `name` (a processor that must record a given-up run). */
export function OnJobFailed(
  name: JobName,
): <M extends JobFailedListenerMethod>(target: object, key: string | symbol, descriptor: TypedPropertyDescriptor<M>) => void {
  return SetMetadata(JOB_FAILED_LISTENER, name);
}
