import { Module } from '@nestjs/common';
import { AlertsCoreModule } from '../alerts/alerts.module';
import { RegistryModule } from '../registry/registry.module';
import { CanaryControlService } from './canary-control.service';
import { CanaryCountsRepository } from './canary-counts.repository';
import { CanaryDecisionService } from './canary-decision.service';
import { RolloutController } from './rollout.controller';
import { RolloutNotifier } from './rollout-notifier';
import { RolloutService } from './rollout.service';

/** Guarded rollout for every role that needs it: the nightly decides canaries, the api serves the policy and list. */
@Module({
  imports: [RegistryModule, AlertsCoreModule],
  providers: [RolloutService, CanaryDecisionService, CanaryCountsRepository, CanaryControlService, RolloutNotifier],
  exports: [RolloutService, CanaryDecisionService],
})
export class RolloutCoreModule {}

/** api role: GET/PUT /v1/rollout/policy, GET /v1/rollout/canaries, POST .../canaries/{id}/promote and /stop. */
@Module({ imports: [RolloutCoreModule], controllers: [RolloutController] })
export class RolloutApiModule {}
