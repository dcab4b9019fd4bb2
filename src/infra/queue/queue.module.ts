import { Global, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { QueueProducer } from './queue.producer';
import { QueueWorkers } from './queue-worker';

@Global()
@Module({ imports: [DiscoveryModule], providers: [QueueProducer, QueueWorkers], exports: [QueueProducer] })
export class QueueModule {}
