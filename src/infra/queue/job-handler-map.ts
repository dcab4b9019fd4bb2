import { JobName, QueueName } from './queue.names';

/** A method found on a provider with @JobHandler or @OnJobFailed, named `Class.method` for the boot's messages. */
export interface FoundMethod<F> {
  jobName: JobName;
  where: string;
  call: F;
}

export interface QueueHandlers<H, L> {
  handlers: Map<JobName, H>;
  failedListeners: Map<JobName, L>;
}

/** The process's job handlers cannot run every job of the queues it works on; the message names each job. */
export class JobHandlerMapError extends Error {}

/**
 * Groups the handlers found at boot by queue. A job name with two handlers, a queue whose worker would meet a job it
 * has no handler for, or a failure listener of a job nobody handles here fail the boot, every problem listed at once:
 * found at run time, the job would fail for good (unknown name) or run twice as fast in one process as in another.
 */
export function mapJobHandlers<H, L>(
  queueOf: Readonly<Record<JobName, { queue: QueueName }>>,
  handlers: ReadonlyArray<FoundMethod<H>>,
  failedListeners: ReadonlyArray<FoundMethod<L>> = [],
): Map<QueueName, QueueHandlers<H, L>> {
  const problems: string[] = [];
  const byQueue = new Map<QueueName, QueueHandlers<H, L>>();
  const handlerWhere = new Map<JobName, string>();
  for (const { jobName, where, call } of handlers) {
    const first = handlerWhere.get(jobName);
    if (first !== undefined) {
      problems.push(`job ${jobName} has two handlers: ${first} and ${where}`);
      continue;
    }
    handlerWhere.set(jobName, where);
    const queue = queueOf[jobName].queue;
    if (!byQueue.has(queue)) byQueue.set(queue, { handlers: new Map(), failedListeners: new Map() });
    byQueue.get(queue)!.handlers.set(jobName, call);
  }
  for (const [queue, { handlers: found }] of byQueue) {
    const worker = [...found.keys()].map((name) => handlerWhere.get(name)).join(', ');
    for (const jobName of Object.values(JobName)) {
      if (queueOf[jobName].queue === queue && !found.has(jobName))
        problems.push(`job ${jobName} has no handler; its queue ${queue} gets a worker here for ${worker}`);
    }
  }
  const listenerWhere = new Map<JobName, string>();
  for (const { jobName, where, call } of failedListeners) {
    const queue = byQueue.get(queueOf[jobName].queue);
    if (listenerWhere.has(jobName)) problems.push(`job ${jobName} has two failure listeners: ${listenerWhere.get(jobName)} and ${where}`);
    else if (!queue?.handlers.has(jobName)) problems.push(`job ${jobName} has a failure listener (${where}) but no handler`);
    else queue.failedListeners.set(jobName, call);
    listenerWhere.set(jobName, where);
  }
  if (problems.length > 0) throw new JobHandlerMapError(`job handlers do not match the jobs:\n- ${problems.join('\n- ')}`);
  return byQueue;
}
