import { Injectable } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import pino from 'pino';
import { APP_CONFIG } from '../../config/config.module';
import { ROOT_LOGGER } from '../logging/logging.module';
import { JobHandler, OnJobFailed } from './job-handler';
import { mapJobHandlers } from './job-handler-map';
import { JOBS } from './queue.jobs';
import { JobName, QueueName } from './queue.names';
import { AlertDeliveryPayload } from './queue.payloads';
import { QueueWorkers } from './queue-worker';

@Injectable()
class DeliveryHandler {
  @JobHandler(JobName.AlertDelivery)
  async deliver(payload: AlertDeliveryPayload) {
    return payload.destinationId;
  }
}

@Injectable()
class EvaluationHandler {
  @JobHandler(JobName.AlertEvaluation)
  async evaluate() {}

  @OnJobFailed(JobName.AlertEvaluation)
  noteFailure() {}
}

@Injectable()
class SecondDeliveryHandler {
  @JobHandler(JobName.AlertDelivery)
  async deliverAgain() {}
}

/** A testing module of QueueWorkers and `handlers`; its map is built the way the boot builds it (onModuleInit). */
async function workersWith(...handlers: Array<new () => object>) {
  const module = await Test.createTestingModule({
    imports: [DiscoveryModule],
    providers: [
      QueueWorkers,
      { provide: APP_CONFIG, useValue: {} },
      { provide: ROOT_LOGGER, useValue: pino({ level: 'silent' }) },
      ...handlers,
    ],
  }).compile();
  return { workers: module.get(QueueWorkers), boot: () => module.init() };
}

describe('QueueWorkers finding the job handlers at boot', () => {
  it('maps every job of a queue to the method that declares it', async () => {
    const { workers } = await workersWith(DeliveryHandler, EvaluationHandler);
    workers.onModuleInit();
    expect(workers.handledJobs()).toEqual(new Map([[QueueName.Alerts, [JobName.AlertDelivery, JobName.AlertEvaluation]]]));
  });

  it('fails the boot naming the job of a queue it works on that has no handler', async () => {
    const { boot } = await workersWith(DeliveryHandler);
    await expect(boot()).rejects.toThrow(
      'job alert-evaluation has no handler; its queue alerts gets a worker here for DeliveryHandler.deliver',
    );
  });

  it('fails the boot naming a job with two handlers and both methods', async () => {
    const { boot } = await workersWith(DeliveryHandler, EvaluationHandler, SecondDeliveryHandler);
    await expect(boot()).rejects.toThrow(
      'job alert-delivery has two handlers: DeliveryHandler.deliver and SecondDeliveryHandler.deliverAgain',
    );
  });

  it('starts no worker in a process without handlers (the api role)', async () => {
    const { workers } = await workersWith();
    workers.onModuleInit();
    expect(workers.handledJobs()).toEqual(new Map());
  });
});

describe('mapJobHandlers', () => {
  const found = (jobName: JobName, where: string) => ({ jobName, where, call: where });

  it('lists every problem at once', () => {
    expect(() =>
      mapJobHandlers(
        JOBS,
        [found(JobName.NightlyRun, 'A.run'), found(JobName.NightlyRun, 'B.run'), found(JobName.AlertDelivery, 'C.deliver')],
        [found(JobName.CategorizeBatch, 'D.wake')],
      ),
    ).toThrow(
      [
        'job handlers do not match the jobs:',
        '- job nightly-run has two handlers: A.run and B.run',
        '- job nightly-project-run has no handler; its queue analytics gets a worker here for A.run',
        '- job nightly-schedule has no handler; its queue analytics gets a worker here for A.run',
        '- job alert-evaluation has no handler; its queue alerts gets a worker here for C.deliver',
        '- job categorize-batch has a failure listener (D.wake) but no handler',
      ].join('\n'),
    );
  });

  it('routes a failure listener to the queue of its job', () => {
    const map = mapJobHandlers(JOBS, [found(JobName.CategorizeBatch, 'P.categorize')], [found(JobName.CategorizeBatch, 'P.wake')]);
    expect(map.get(QueueName.Events)?.failedListeners.get(JobName.CategorizeBatch)).toBe('P.wake');
  });
});
