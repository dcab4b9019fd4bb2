import { Injectable } from '@nestjs/common';
import { Prisma } from '../generated/prisma/client';
import { PrismaService } from '../infra/prisma/prisma.service';

export type DeliveryOutcome = 'delivered' | 'failed' | 'refused';

export interface DeliveryAttempt {
  projectId: string;
  destinationId: string;
  notificationId: string;
  incidentId: string | null;
  event: string;
  attempt: number;
  outcome: DeliveryOutcome;
  statusCode: number | null;
  latencyMs: number | null;
  error: string | null;
}

export interface StoredDelivery extends Omit<DeliveryAttempt, 'projectId'> {
  id: string;
  createdAt: Date;
}

const DELIVERY_SELECT = {
  id: true,
  destinationId: true,
  notificationId: true,
  incidentId: true,
  event: true,
  attempt: true,
  outcome: true,
  statusCode: true,
  latencyMs: true,
  error: true,
  createdAt: true,
} satisfies Prisma.AlertDeliverySelect;

@Injectable()
export class AlertDeliveryRepository {
  constructor(private readonly prisma: PrismaService) {}

  async insertAttempt(attempt: DeliveryAttempt): Promise<void> {
    await this.prisma.alertDelivery.create({ data: attempt });
  }

  /** Newest first, after the keyset `after` ([createdAt, id] of the last row of the previous page). */
  async findDeliveries(
    projectId: string,
    filter: { destinationId?: string; incidentId?: string; after?: { at: Date; id: string }; limit: number },
  ): Promise<StoredDelivery[]> {
    const after = filter.after;
    const rows = await this.prisma.alertDelivery.findMany({
      where: {
        projectId,
        destinationId: filter.destinationId,
        incidentId: filter.incidentId,
        ...(after ? { OR: [{ createdAt: { lt: after.at } }, { createdAt: after.at, id: { lt: after.id } }] } : {}),
      },
      select: DELIVERY_SELECT,
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take: filter.limit,
    });
    return rows.map((row) => ({ ...row, outcome: row.outcome as DeliveryOutcome }));
  }
}
