import { Module } from '@nestjs/common';
import { RecurringJobs } from './recurring-jobs';

/** scheduler role: the schedules of the recurring jobs; workers run them (job-handler.ts). */
@Module({ providers: [RecurringJobs] })
export class RecurringJobsModule {}
