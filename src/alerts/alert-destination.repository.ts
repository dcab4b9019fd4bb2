import { Injectable } from '@nestjs/common';
import { PrismaService } from '../infra/prisma/prisma.service';
import type { DestinationKind } from './notification-format';

export interface StoredDestination {
  id: string;
  projectId: string;
  name: string;
  kind: DestinationKind;
  url: string;
  /** The signing secret: sent nowhere but into the HMAC, answered once at creation, never logged. */
  secret: string;
  pausedAt: Date | null;
  failingSince: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

@Injectable()
export class AlertDestinationRepository {
  constructor(private readonly prisma: PrismaService) {}

  async insertDestination(
    projectId: string,
    input: { name: string; kind: DestinationKind; url: string; secret: string },
  ): Promise<StoredDestination> {
    return toDestination(await this.prisma.alertDestination.create({ data: { projectId, ...input } }));
  }

  countDestinations(projectId: string): Promise<number> {
    return this.prisma.alertDestination.count({ where: { projectId } });
  }

  async findDestinations(projectId: string): Promise<StoredDestination[]> {
    const rows = await this.prisma.alertDestination.findMany({ where: { projectId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
    return rows.map(toDestination);
  }

  async findActiveDestinations(projectId: string): Promise<StoredDestination[]> {
    const rows = await this.prisma.alertDestination.findMany({
      where: { projectId, pausedAt: null },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    });
    return rows.map(toDestination);
  }

  async findDestination(projectId: string, id: string): Promise<StoredDestination | null> {
    const row = await this.prisma.alertDestination.findFirst({ where: { projectId, id } });
    return row ? toDestination(row) : null;
  }

  async updateDestination(
    projectId: string,
    id: string,
    patch: { name?: string; url?: string; pausedAt?: Date | null; failingSince?: Date | null },
  ): Promise<StoredDestination | null> {
    const { count } = await this.prisma.alertDestination.updateMany({
      where: { projectId, id },
      data: { ...patch, updatedAt: new Date() },
    });
    return count === 0 ? null : this.findDestination(projectId, id);
  }

  async deleteDestination(projectId: string, id: string): Promise<boolean> {
    const { count } = await this.prisma.alertDestination.deleteMany({ where: { projectId, id } });
    return count > 0;
  }

  /** A delivery went through: the destination is healthy again. */
  async recordSuccess(projectId: string, id: string): Promise<void> {
    await this.prisma.alertDestination.updateMany({
      where: { projectId, id, failingSince: { not: null } },
      data: { failingSince: null },
    });
  }

  /**
   * A delivery failed at `at`: remembers when the failing began, and pauses the destination once it has failed for
   * `pauseAfterMs` without a success in between. True when this failure paused it.
   */
  async recordFailure(projectId: string, id: string, at: Date, pauseAfterMs: number): Promise<boolean> {
    await this.prisma.alertDestination.updateMany({ where: { projectId, id, failingSince: null }, data: { failingSince: at } });
    const { count } = await this.prisma.alertDestination.updateMany({
      where: { projectId, id, pausedAt: null, failingSince: { lte: new Date(at.getTime() - pauseAfterMs) } },
      data: { pausedAt: at },
    });
    return count > 0;
  }
}

function toDestination(row: {
  id: string;
  projectId: string;
  name: string;
  kind: string;
  url: string;
  secret: string;
  pausedAt: Date | null;
  failingSince: Date | null;
  createdAt: Date;
  updatedAt: Date;
}): StoredDestination {
  return { ...row, kind: row.kind as DestinationKind };
}
