import { Injectable } from '@nestjs/common';
import { PrismaService } from '../prisma/prisma.service';

/** Whether Postgres answers, for the readiness probe. */
@Injectable()
export class DatabaseHealthRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** False when Postgres fails or has not answered within `timeoutMs`: a probe must answer even when the pool hangs. */
  async isReachable(timeoutMs: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        this.prisma.$queryRaw`SELECT 1`.then(() => true),
        new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs))),
      ]);
    } catch {
      return false;
    } finally {
      clearTimeout(timer);
    }
  }
}
