import { Global, Module } from '@nestjs/common';
import { QueueProducer } from './queue.producer';
import { QueueWorkers } from './queue-worker';

@Global()
@Module({ providers: [QueueProducer, QueueWorkers], exports: [QueueProducer, QueueWorkers] })
export class QueueModule {}
