import { Module } from '@nestjs/common';
import { AdvisoryLocks } from '../infra/locks/advisory-lock';
import { RegistryModule } from '../registry/registry.module';
import { RolloutCoreModule } from '../rollout/rollout.module';
import { BreakdownRepository } from './breakdown.repository';
import { DailyStatsRepository } from './daily-stats.repository';
import { JobRunRepository } from './job-run.repository';
import { MistakeEvidenceRepository } from './mistake-evidence.repository';
import { JobsController } from './jobs.controller';
import { NightlyProcessor } from './nightly.processor';
import { NightlyScheduler } from './nightly.scheduler';
import { NightlyRunsService } from './nightly-runs.service';
import { NightlyService } from './nightly.service';
import { NightlyDayService } from './nightly-day.service';
import { RecommendationFindingsService } from './recommendation-findings.service';
import { CanaryNightService } from './canary-night.service';
import { AutoApplyService } from './auto-apply.service';
import { EffectMeasurementService } from './effect-measurement.service';
import { RecommendationApplier } from './recommendation-applier';
import { RecommendationRepository } from './recommendation.repository';
import { RecommendationsController } from './recommendations.controller';
import { RecommendationsService } from './recommendations.service';
import { ToolConfusionRepository } from './tool-confusion.repository';
import { ToolConfusionService } from './tool-confusion.service';
import { RepeatedCallsService } from './repeated-calls.service';
import { SessionRollupRepository } from './session-rollup.repository';
import { WarningCostService } from './warning-cost.service';
import { SourceFixController } from './source-fix.controller';
import { SourceFixService } from './source-fix.service';

@Module({
  imports: [RegistryModule, RolloutCoreModule],
  providers: [
    DailyStatsRepository,
    BreakdownRepository,
    MistakeEvidenceRepository,
    RecommendationRepository,
    JobRunRepository,
    NightlyService,
    NightlyDayService,
    RecommendationFindingsService,
    CanaryNightService,
    AutoApplyService,
    EffectMeasurementService,
    NightlyRunsService,
    AdvisoryLocks,
    RecommendationApplier,
    RecommendationsService,
    ToolConfusionRepository,
    ToolConfusionService,
    SessionRollupRepository,
    RepeatedCallsService,
    WarningCostService,
    SourceFixService,
  ],
  exports: [NightlyService, NightlyRunsService, RecommendationsService, SourceFixService],
})
export class AnalyticsCoreModule {}

/** api role: queue the job on demand, read runs, review recommendations and the policy. */
@Module({ imports: [AnalyticsCoreModule], controllers: [JobsController, RecommendationsController, SourceFixController] })
export class AnalyticsApiModule {}

/** worker role: enqueues the nightly job when the recurring nightly-schedule job says so (NIGHTLY_CRON), and runs it. */
@Module({ imports: [AnalyticsCoreModule], providers: [NightlyProcessor, NightlyScheduler] })
export class AnalyticsWorkerModule {}
