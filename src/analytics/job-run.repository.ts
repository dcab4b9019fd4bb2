import { Injectable } from '@nestjs/common';
import { PrismaService } from '../infra/prisma/prisma.service';

export type JobRunStatus = 'queued' | 'running' | 'succeeded' | 'failed' | 'skipped';
export type FinalJobRunStatus = Exclude<JobRunStatus, 'queued' | 'running'>;

export interface JobRun {
  id: string;
  projectId: string;
  job: string;
  day: Date;
  trigger: string;
  status: string;
  counts: unknown;
  error: string | null;
  startedAt: Date;
  finishedAt: Date | null;
}

/** The job_runs rows: one per run of an analytics job, from queued (API) or running (schedule) to its outcome. */
@Injectable()
export class JobRunRepository {
  constructor(private readonly prisma: PrismaService) {}

  /**
   * The project's queued or running run of `job` for `day`, or a new queued one: two requests for the same day share
   * one run. A transaction-scoped advisory lock on (job, project, day) makes the look-up and the insert one step.
   */
  async findOrQueueRun(projectId: string, job: string, day: Date, trigger: string): Promise<{ run: JobRun; isNew: boolean }> {
    const key = `toolcoach:job-run:${job}:${projectId}:${day.toISOString().slice(0, 10)}`;
    return this.prisma.$transaction(async (tx) => {
      await tx.$queryRaw`SELECT 1 FROM pg_advisory_xact_lock(hashtextextended(${key}, 0))`;
      const pending = await tx.jobRun.findFirst({
        where: { projectId, job, day, status: { in: ['queued', 'running'] } },
        orderBy: { startedAt: 'desc' },
      });
      if (pending) return { run: pending, isNew: false };
      return { run: await tx.jobRun.create({ data: { projectId, job, day, trigger, status: 'queued' } }), isNew: true };
    });
  }

  /** A run that starts at once (the scheduled job), without a queued step. */
  async insertRunningRun(projectId: string, job: string, day: Date, trigger: string): Promise<string> {
    const row = await this.prisma.jobRun.create({ data: { projectId, job, day, trigger, status: 'running' }, select: { id: true } });
    return row.id;
  }

  /**
   * Marks a queued run running from now; false when it already has an outcome. A run found `running` is taken over:
   * its worker died (it held the project lock, which the caller now holds) and BullMQ handed the job on.
   */
  async startQueuedRun(projectId: string, id: string): Promise<boolean> {
    const { count } = await this.prisma.jobRun.updateMany({
      where: { projectId, id, status: { in: ['queued', 'running'] } },
      data: { status: 'running', startedAt: new Date() },
    });
    return count > 0;
  }

  finishRun(
    projectId: string,
    id: string,
    status: FinalJobRunStatus,
    counts: Record<string, number> | null,
    error: string | null,
  ): Promise<JobRun> {
    return this.prisma.jobRun.update({
      where: { projectId_id: { projectId, id } },
      data: { status, counts: counts ?? undefined, error, finishedAt: new Date() },
    });
  }

  /**
   * Records a run failed unless it already has an outcome: for a job BullMQ gave up on outside the run's own code
   * (stalled past the limit after its worker died, a payload that can never run), which would otherwise stay queued
   * or running for good. False when the run had an outcome (or does not exist).
   */
  async failUnfinishedRun(projectId: string, id: string, error: string): Promise<boolean> {
    const { count } = await this.prisma.jobRun.updateMany({
      where: { projectId, id, status: { in: ['queued', 'running'] } },
      data: { status: 'failed', error: error.slice(0, 2000), finishedAt: new Date() },
    });
    return count > 0;
  }

  findRun(projectId: string, id: string): Promise<JobRun | null> {
    return this.prisma.jobRun.findFirst({ where: { projectId, id } });
  }

  /** Newest first, keyset-paged on (startedAt, id). */
  listRuns(projectId: string, limit: number, before?: { startedAt: Date; id: string }): Promise<JobRun[]> {
    return this.prisma.jobRun.findMany({
      where: {
        projectId,
        ...(before ? { OR: [{ startedAt: { lt: before.startedAt } }, { startedAt: before.startedAt, id: { lt: before.id } }] } : {}),
      },
      orderBy: [{ startedAt: 'desc' }, { id: 'desc' }],
      take: limit,
    });
  }
}
