import { Global, Module } from '@nestjs/common';
import { SharedTimeSlice } from './shared-time-slice';

/** One SharedTimeSlice per process, for every feature that runs users' schemas. */
@Global()
@Module({ providers: [{ provide: SharedTimeSlice, useFactory: () => new SharedTimeSlice() }], exports: [SharedTimeSlice] })
export class EventLoopModule {}
