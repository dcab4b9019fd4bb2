import { Injectable } from '@nestjs/common';
import { Prisma } from '../generated/prisma/client';
import { PrismaService } from '../infra/prisma/prisma.service';
import { DEFAULT_PARTITION, dayOfPartition, partitionNameOf, ProjectRetention } from './partition-plan';

/**
 * DDL on the parent waits at most this long for its lock, then gives up until the next run: dropping a partition takes
 * an ACCESS EXCLUSIVE lock on `events`, and inserts queue behind a DDL statement that is itself waiting.
 */
const DDL_LOCK_TIMEOUT = '2s';

/** Tables of derived data kept ROLLUP_RETENTION_DAYS, with the column that dates a row. Names are ours, never input. */
const ROLLUP_TABLES = [
  { table: 'hourly_rollups', dateColumn: 'hour', isDate: false },
  { table: 'hourly_error_rollups', dateColumn: 'hour', isDate: false },
  { table: 'hourly_dimension_rollups', dateColumn: 'hour', isDate: false },
  { table: 'daily_tool_stats', dateColumn: 'day', isDate: true },
  { table: 'daily_version_rollups', dateColumn: 'day', isDate: true },
  { table: 'daily_mistake_rollups', dateColumn: 'day', isDate: true },
  { table: 'daily_misnamed_calls', dateColumn: 'day', isDate: true },
  { table: 'daily_tool_confusions', dateColumn: 'day', isDate: true },
  { table: 'daily_session_rollups', dateColumn: 'day', isDate: true },
  { table: 'daily_breakdown_rollups', dateColumn: 'day', isDate: true },
  // a group unseen for the whole period: its count, samples and status go with it
  { table: 'error_groups', dateColumn: 'last_seen', isDate: false },
] as const;

export type RollupTable = (typeof ROLLUP_TABLES)[number]['table'];
export const ROLLUP_TABLE_NAMES: readonly RollupTable[] = ROLLUP_TABLES.map((t) => t.table);

const quoted = (identifier: string) => Prisma.raw(`"${identifier.replaceAll('"', '""')}"`);
const bound = (day: Date) => day.toISOString();

/** A partition name read back from the catalog, checked before it is put into DDL. */
function partitionIdentifier(name: string): Prisma.Sql {
  if (name !== DEFAULT_PARTITION && dayOfPartition(name) === null) throw new Error(`not an events partition: ${name}`);
  return quoted(name);
}

/** Partitions, the retention setting and the bounded deletes of raw events and old rollups. */
@Injectable()
export class RetentionRepository {
  constructor(private readonly prisma: PrismaService) {}

  async listProjectRetentions(): Promise<ProjectRetention[]> {
    return this.prisma.project
      .findMany({ select: { id: true, rawEventRetentionDays: true }, orderBy: { id: 'asc' } })
      .then((rows) => rows.map((row) => ({ projectId: row.id, rawEventRetentionDays: row.rawEventRetentionDays })));
  }

  async findRawEventRetentionDays(projectId: string): Promise<number | null> {
    const project = await this.prisma.project.findUnique({ where: { id: projectId }, select: { rawEventRetentionDays: true } });
    return project?.rawEventRetentionDays ?? null;
  }

  /** False when there is no such project. */
  async setRawEventRetentionDays(projectId: string, days: number): Promise<boolean> {
    const { count } = await this.prisma.project.updateMany({ where: { id: projectId }, data: { rawEventRetentionDays: days } });
    return count === 1;
  }

  async setRawEventRetentionDaysByName(name: string, days: number): Promise<boolean> {
    const { count } = await this.prisma.project.updateMany({ where: { name }, data: { rawEventRetentionDays: days } });
    return count === 1;
  }

  /** The names of events' partitions, daily ones and the default one. */
  async listEventPartitions(): Promise<string[]> {
    const rows = await this.prisma.$queryRaw<Array<{ name: string }>>`
      SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
      WHERE i.inhparent = 'events'::regclass ORDER BY c.relname`;
    return rows.map((row) => row.name);
  }

  /** The UTC days of the rows waiting in the default partition (normally none: it is read in full). */
  async findDaysInDefaultPartition(): Promise<Date[]> {
    const rows = await this.prisma.$queryRaw<Array<{ day: Date }>>`
      SELECT DISTINCT date_trunc('day', received_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS day
      FROM ${quoted(DEFAULT_PARTITION)} ORDER BY 1`;
    return rows.map((row) => row.day);
  }

  /**
   * Creates the day's partition as a table of its own, moves the day's rows from the default partition into it, then
   * attaches it: ATTACH takes only a SHARE UPDATE EXCLUSIVE lock on `events`, so inserts and reads go on meanwhile,
   * and a day that has rows waiting in the default partition can get its partition at all (CREATE ... PARTITION OF
   * refuses while the default partition holds rows of the new range). Returns how many rows were moved.
   */
  async createPartition(day: Date): Promise<number> {
    const name = quoted(partitionNameOf(day));
    const from = bound(day);
    const to = bound(new Date(day.getTime() + 86_400_000));
    return this.prisma.$transaction(async (tx) => {
      await tx.$executeRaw`SELECT set_config('lock_timeout', ${DDL_LOCK_TIMEOUT}, true)`;
      await tx.$executeRaw`CREATE TABLE ${name} (LIKE events INCLUDING DEFAULTS INCLUDING CONSTRAINTS)`;
      const moved = await tx.$executeRaw`
        WITH moved AS (
          DELETE FROM ${quoted(DEFAULT_PARTITION)} WHERE received_at >= ${from}::timestamptz AND received_at < ${to}::timestamptz
          RETURNING *
        )
        INSERT INTO ${name} SELECT * FROM moved`;
      // bounds are literals in DDL (no parameters there); both are ISO instants we formatted
      await tx.$executeRawUnsafe(`ALTER TABLE events ATTACH PARTITION "${partitionNameOf(day)}" FOR VALUES FROM ('${from}') TO ('${to}')`);
      return moved;
    });
  }

  /** Which of these projects have at least one row in the partition: one index probe each. */
  async findProjectsWithRows(partition: string, projectIds: readonly string[]): Promise<string[]> {
    if (projectIds.length === 0) return [];
    const rows = await this.prisma.$queryRaw<Array<{ project_id: string }>>`
      SELECT p.project_id FROM unnest(${[...projectIds]}::uuid[]) AS p(project_id)
      WHERE EXISTS (SELECT 1 FROM ${partitionIdentifier(partition)} e WHERE e.project_id = p.project_id)`;
    return rows.map((row) => row.project_id);
  }

  /** Drops the partition; false when its lock was not granted within DDL_LOCK_TIMEOUT (the next run tries again). */
  async dropPartition(partition: string): Promise<boolean> {
    try {
      await this.prisma.$transaction(async (tx) => {
        await tx.$executeRaw`SELECT set_config('lock_timeout', ${DDL_LOCK_TIMEOUT}, true)`;
        await tx.$executeRaw`DROP TABLE ${partitionIdentifier(partition)}`;
      });
      return true;
    } catch (error) {
      if (isLockTimeout(error)) return false;
      throw error;
    }
  }

  /**
   * Deletes at most `limit` of the project's rows from one partition (received before `before`, when given): one
   * bounded statement, so a big day never holds locks or bloats WAL in one go. Returns how many it deleted.
   */
  deleteProjectRows(partition: string, projectId: string, limit: number, before?: Date): Promise<number> {
    const table = partitionIdentifier(partition);
    const older = before ? Prisma.sql`AND received_at < ${bound(before)}::timestamptz` : Prisma.empty;
    return this.prisma.$executeRaw`
      DELETE FROM ${table} WHERE ctid = ANY(ARRAY(
        SELECT ctid FROM ${table} WHERE project_id = ${projectId}::uuid ${older} LIMIT ${limit}))`;
  }

  /** Whether the project still has raw events received before `before` (anywhere, the default partition included). */
  async hasEventsBefore(projectId: string, before: Date): Promise<boolean> {
    const rows = await this.prisma.$queryRaw<Array<{ found: boolean }>>`
      SELECT EXISTS (SELECT 1 FROM events WHERE project_id = ${projectId}::uuid AND received_at < ${bound(before)}::timestamptz) AS found`;
    return rows[0].found;
  }

  /** Deletes at most `limit` of the project's idempotency keys of events received before `before`. */
  deleteEventIdsBefore(projectId: string, before: Date, limit: number): Promise<number> {
    return this.prisma.$executeRaw`
      DELETE FROM event_ids WHERE ctid = ANY(ARRAY(
        SELECT ctid FROM event_ids WHERE project_id = ${projectId}::uuid AND received_at < ${bound(before)}::timestamptz
        LIMIT ${limit}))`;
  }

  /** Deletes at most `limit` of the project's rows of a rollup table dated before `before`. */
  deleteRollupsBefore(table: RollupTable, projectId: string, before: Date, limit: number): Promise<number> {
    const { dateColumn, isDate } = ROLLUP_TABLES.find((t) => t.table === table)!;
    // a UTC day compared as a date: a date compared with a timestamptz would be midnight of the session's time zone
    const limitValue = isDate ? Prisma.sql`${bound(before).slice(0, 10)}::date` : Prisma.sql`${bound(before)}::timestamptz`;
    return this.prisma.$executeRaw`
      DELETE FROM ${quoted(table)} WHERE ctid = ANY(ARRAY(
        SELECT ctid FROM ${quoted(table)} WHERE project_id = ${projectId}::uuid AND ${quoted(dateColumn)} < ${limitValue}
        LIMIT ${limit}))`;
  }

  /**
   * Deletes at most `limit` of the project's unknown-lane templates last seen before `before` that carry no label: a
   * labelled template stays (its label routes later failures, and the fixtures export reads its example), and so does
   * every label.
   */
  deleteUnlabelledTemplatesBefore(projectId: string, before: Date, limit: number): Promise<number> {
    return this.prisma.$executeRaw`
      DELETE FROM unknown_templates WHERE ctid = ANY(ARRAY(
        SELECT t.ctid FROM unknown_templates t
        WHERE t.project_id = ${projectId}::uuid AND t.last_seen < ${bound(before)}::timestamptz
          AND NOT EXISTS (SELECT 1 FROM template_labels l WHERE l.project_id = t.project_id AND l.template_id = t.id)
        LIMIT ${limit}))`;
  }
}

/** 55P03 lock_not_available: what Postgres raises when lock_timeout expires (the adapter nests the driver's error). */
function isLockTimeout(error: unknown): boolean {
  const cause = (error as { meta?: { driverAdapterError?: { cause?: { originalCode?: unknown } } } })?.meta?.driverAdapterError?.cause;
  return cause?.originalCode === '55P03' || (error as { code?: unknown })?.code === '55P03';
}
