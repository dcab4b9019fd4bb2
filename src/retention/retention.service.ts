import { Inject, Injectable } from '@nestjs/common';
import { Logger } from 'pino';
import { AdvisoryLocks } from '../infra/locks/advisory-lock';
import { ROOT_LOGGER } from '../infra/logging/logging.module';
import {
  dayOfPartition,
  daysToCreate,
  DEFAULT_PARTITION,
  expiredPartitions,
  partitionNameOf,
  ProjectRetention,
  rawEventCutoff,
  rollupCutoff,
} from './partition-plan';
import { RetentionRepository, ROLLUP_TABLE_NAMES } from './retention.repository';

/** Rows one DELETE statement removes at most: short locks and a bounded WAL burst per statement. */
export const DELETE_BATCH_ROWS = 5000;
const MAINTENANCE_LOCK = 'toolcoach:events-retention';

export interface MaintenanceReport {
  /** False when another process held the maintenance lock: it did the work, this run did nothing. */
  ran: boolean;
  createdPartitions: string[];
  /** Rows moved out of the default partition into a new partition of their day. */
  movedFromDefault: number;
  droppedPartitions: string[];
  /** Partitions left for the next run because their lock was not granted in time. */
  postponedPartitions: string[];
  deletedEvents: number;
  deletedEventIds: number;
  deletedRollups: number;
  /** Unknown-lane templates unseen for the rollup period and never labelled. */
  deletedUnknownTemplates: number;
  deleteStatements: number;
  /** The most rows one DELETE statement removed (never above the batch size). */
  largestDelete: number;
}

/**
 * Keeps `events` partitioned ahead of the clock and applies retention: whole daily partitions are dropped when no
 * project still keeps any of their rows, a project whose retention is shorter than others' loses its rows of a kept day
 * by bounded deletes, then its idempotency keys; rollups, error groups, daily stats and the unknown lane's unlabelled
 * templates go after ROLLUP_RETENTION_DAYS (labels, and the templates they label, stay).
 * Idempotent (a second run finds nothing to do) and run by one process at a time (a Postgres advisory lock): every
 * scheduler replica may call it on the same tick.
 */
@Injectable()
export class RetentionService {
  private readonly logger: Logger;

  constructor(
    private readonly repository: RetentionRepository,
    private readonly locks: AdvisoryLocks,
    @Inject(ROOT_LOGGER) rootLogger: Logger,
  ) {
    this.logger = rootLogger.child({ context: 'RetentionService' });
  }

  async getRawEventRetentionDays(projectId: string): Promise<number | null> {
    return this.repository.findRawEventRetentionDays(projectId);
  }

  async setRawEventRetentionDays(projectId: string, days: number): Promise<boolean> {
    const isSet = await this.repository.setRawEventRetentionDays(projectId, days);
    if (isSet) this.logger.info({ projectId, rawEventRetentionDays: days }, 'raw event retention changed');
    return isSet;
  }

  /** `now` is the clock of the run: partitions are created ahead of it and retention counts back from it. */
  async runMaintenance(now: Date, batchRows: number = DELETE_BATCH_ROWS): Promise<MaintenanceReport> {
    const report: MaintenanceReport = {
      ran: false,
      createdPartitions: [],
      movedFromDefault: 0,
      droppedPartitions: [],
      postponedPartitions: [],
      deletedEvents: 0,
      deletedEventIds: 0,
      deletedRollups: 0,
      deletedUnknownTemplates: 0,
      deleteStatements: 0,
      largestDelete: 0,
    };
    const lock = await this.locks.tryAcquire(MAINTENANCE_LOCK);
    if (lock === null) {
      this.logger.debug('retention maintenance is running in another process; skipped');
      return report;
    }
    try {
      report.ran = true;
      const projects = await this.repository.listProjectRetentions();
      await this.createPartitions(now, projects, report);
      await this.dropOrTrimExpiredPartitions(now, projects, batchRows, report);
      for (const project of projects) {
        await this.trimDefaultPartition(now, project, batchRows, report);
        await this.trimEventIds(now, project, batchRows, report);
        await this.trimRollups(now, project.projectId, batchRows, report);
        await this.trimUnknownTemplates(now, project.projectId, batchRows, report);
      }
      // creating tomorrow's partitions is routine (debug); a run that removed or moved data says so at info
      const removedRows = [report.deletedEvents, report.deletedEventIds, report.deletedRollups, report.deletedUnknownTemplates];
      const hasRemoved = report.droppedPartitions.length > 0 || removedRows.some((rows) => rows > 0);
      const level = hasRemoved || report.movedFromDefault > 0 ? 'info' : 'debug';
      this.logger[level]({ ...report, now: now.toISOString() }, 'retention maintenance done');
      return report;
    } finally {
      await lock.release();
    }
  }

  private async createPartitions(now: Date, projects: readonly ProjectRetention[], report: MaintenanceReport): Promise<void> {
    const partitions = await this.repository.listEventPartitions();
    const existingDays = partitions.map(dayOfPartition).filter((day): day is Date => day !== null);
    const daysInDefault = await this.repository.findDaysInDefaultPartition();
    for (const day of daysToCreate(now, existingDays, daysInDefault, projects)) {
      const moved = await this.repository.createPartition(day);
      const name = partitionNameOf(day);
      report.createdPartitions.push(name);
      report.movedFromDefault += moved;
      this.logger[moved > 0 ? 'info' : 'debug']({ partition: name, movedFromDefault: moved }, 'events partition created');
    }
  }

  private async dropOrTrimExpiredPartitions(
    now: Date,
    projects: readonly ProjectRetention[],
    batchRows: number,
    report: MaintenanceReport,
  ): Promise<void> {
    const partitions = await this.repository.listEventPartitions();
    for (const partition of expiredPartitions(now, partitions, projects)) {
      const keepers = await this.repository.findProjectsWithRows(partition.name, partition.keptFor);
      if (keepers.length === 0) {
        if (await this.repository.dropPartition(partition.name)) {
          report.droppedPartitions.push(partition.name);
          this.logger.info({ partition: partition.name }, 'events partition dropped: past every project retention');
        } else {
          report.postponedPartitions.push(partition.name);
          this.logger.info({ partition: partition.name }, 'events partition kept until the next run: its lock was not granted in time');
        }
        continue;
      }
      for (const projectId of await this.repository.findProjectsWithRows(partition.name, partition.expiredFor)) {
        const deleted = await this.deleteInBatches(report, batchRows, () =>
          this.repository.deleteProjectRows(partition.name, projectId, batchRows),
        );
        report.deletedEvents += deleted;
        this.logger.info({ partition: partition.name, projectId, deleted }, 'expired events deleted from a partition other projects keep');
      }
    }
  }

  /** Rows of days without a partition wait in the default partition; the expired ones are deleted there. */
  private async trimDefaultPartition(now: Date, project: ProjectRetention, batchRows: number, report: MaintenanceReport) {
    const cutoff = rawEventCutoff(now, project.rawEventRetentionDays);
    const deleted = await this.deleteInBatches(report, batchRows, () =>
      this.repository.deleteProjectRows(DEFAULT_PARTITION, project.projectId, batchRows, cutoff),
    );
    if (deleted === 0) return;
    report.deletedEvents += deleted;
    this.logger.info({ partition: DEFAULT_PARTITION, projectId: project.projectId, deleted }, 'expired events deleted');
  }

  /**
   * An id's key goes only once no event of the project older than the cutoff is left (a postponed drop keeps some):
   * a key deleted before its event would let a re-send of that id be stored a second time.
   */
  private async trimEventIds(now: Date, project: ProjectRetention, batchRows: number, report: MaintenanceReport) {
    const cutoff = rawEventCutoff(now, project.rawEventRetentionDays);
    if (await this.repository.hasEventsBefore(project.projectId, cutoff)) return;
    const deleted = await this.deleteInBatches(report, batchRows, () =>
      this.repository.deleteEventIdsBefore(project.projectId, cutoff, batchRows),
    );
    if (deleted === 0) return;
    report.deletedEventIds += deleted;
    this.logger.info({ projectId: project.projectId, deleted }, 'expired event ids deleted');
  }

  private async trimRollups(now: Date, projectId: string, batchRows: number, report: MaintenanceReport) {
    const cutoff = rollupCutoff(now);
    for (const table of ROLLUP_TABLE_NAMES) {
      const deleted = await this.deleteInBatches(report, batchRows, () =>
        this.repository.deleteRollupsBefore(table, projectId, cutoff, batchRows),
      );
      if (deleted === 0) continue;
      report.deletedRollups += deleted;
      this.logger.info({ table, projectId, deleted }, 'expired rollups deleted');
    }
  }

  /** A template is a group of failures like an error group: it goes when unseen for as long, unless a person labelled it. */
  private async trimUnknownTemplates(now: Date, projectId: string, batchRows: number, report: MaintenanceReport) {
    const deleted = await this.deleteInBatches(report, batchRows, () =>
      this.repository.deleteUnlabelledTemplatesBefore(projectId, rollupCutoff(now), batchRows),
    );
    if (deleted === 0) return;
    report.deletedUnknownTemplates += deleted;
    this.logger.info({ projectId, deleted }, 'unknown templates unseen for the rollup period deleted');
  }

  /** Runs one bounded DELETE after another until one deletes less than a full batch; returns the total. */
  private async deleteInBatches(report: MaintenanceReport, batchRows: number, deleteBatch: () => Promise<number>): Promise<number> {
    let total = 0;
    for (;;) {
      const deleted = await deleteBatch();
      report.deleteStatements += 1;
      report.largestDelete = Math.max(report.largestDelete, deleted);
      total += deleted;
      if (deleted < batchRows) return total;
    }
  }
}
