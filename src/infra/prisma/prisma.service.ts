import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { PrismaPg } from '@prisma/adapter-pg';
import { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { PrismaClient } from '../../generated/prisma/client';

/** The Prisma client over node-postgres (driver adapter: no engine binary). Hot paths use `$queryRaw` via repositories. */
@Injectable()
export class PrismaService extends PrismaClient implements OnModuleDestroy {
  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    super({ adapter: new PrismaPg({ connectionString: config.databaseUrl, max: 10 }) });
  }

  async onModuleDestroy() {
    await this.$disconnect();
  }
}
