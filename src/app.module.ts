import { DynamicModule, Module } from '@nestjs/common';
import { Logger } from 'pino';
import { AlertsApiModule, AlertsWorkerModule } from './alerts/alerts.module';
import { AnalyticsApiModule, AnalyticsWorkerModule } from './analytics/analytics.module';
import { CategorizeApiModule, CategorizeModule } from './categorize/categorize.module';
import { AppConfig } from './config/config';
import { ConfigModule } from './config/config.module';
import { DashboardModule } from './dashboard/dashboard.module';
import { HealthModule } from './infra/health/health.module';
import { DeadLetterAdminModule } from './infra/queue/dead-letters/dead-letter.module';
import { EventLoopModule } from './infra/event-loop/event-loop.module';
import { LoggingModule } from './infra/logging/logging.module';
import { McpModule } from './mcp/mcp.module';
import { PrismaModule } from './infra/prisma/prisma.module';
import { QueueModule } from './infra/queue/queue.module';
import { RecurringJobsModule } from './infra/queue/recurring-jobs.module';
import { IngestModule } from './ingest/ingest.module';
import { RegistryApiModule } from './registry/registry-api.module';
import { RetentionApiModule, RetentionSchedulerModule } from './retention/retention.module';
import { RolloutApiModule } from './rollout/rollout.module';
import { TenancyModule } from './tenancy/tenancy.module';

/** Composition root: shared infrastructure always; feature modules by the roles this process runs. */
@Module({})
export class AppModule {
  static forRoles(config: AppConfig, logger: Logger): DynamicModule {
    const imports: DynamicModule['imports'] = [
      ConfigModule.forRoot(config),
      LoggingModule.forRoot(logger),
      PrismaModule,
      QueueModule,
      EventLoopModule,
      TenancyModule,
      HealthModule,
    ];
    if (config.roles.has('api'))
      imports.push(
        IngestModule,
        CategorizeApiModule,
        DashboardModule,
        DeadLetterAdminModule,
        AnalyticsApiModule,
        RegistryApiModule,
        AlertsApiModule,
        RetentionApiModule,
        RolloutApiModule,
        McpModule,
      );
    if (config.roles.has('worker')) imports.push(CategorizeModule, AnalyticsWorkerModule, AlertsWorkerModule);
    if (config.roles.has('scheduler')) imports.push(RecurringJobsModule, RetentionSchedulerModule);
    return { module: AppModule, imports };
  }
}
