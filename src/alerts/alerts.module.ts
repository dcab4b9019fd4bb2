import { Module } from '@nestjs/common';
import { AdvisoryLocks } from '../infra/locks/advisory-lock';
import { AlertDeliveryProcessor } from './alert-delivery.processor';
import { AlertDeliveryRepository } from './alert-delivery.repository';
import { AlertDeliveryService } from './alert-delivery.service';
import { AlertDestinationRepository } from './alert-destination.repository';
import { AlertDestinationsController } from './alert-destinations.controller';
import { AlertEvaluationProcessor } from './alert-evaluation.processor';
import { AlertEvaluationService } from './alert-evaluation.service';
import { AlertIncidentRepository } from './alert-incident.repository';
import { AlertIncidentsController } from './alert-incidents.controller';
import { AlertNotifier } from './alert-notifier.service';
import { AlertRuleRepository } from './alert-rule.repository';
import { AlertRulesController } from './alert-rules.controller';
import { AlertSignalRepository } from './alert-signal.repository';
import { AlertsService } from './alerts.service';

/** Alerting for every role that needs it; AlertNotifier is what other features use to send a notification. */
@Module({
  providers: [
    AlertRuleRepository,
    AlertDestinationRepository,
    AlertIncidentRepository,
    AlertDeliveryRepository,
    AlertSignalRepository,
    AlertNotifier,
    AlertDeliveryService,
    AlertEvaluationService,
    AlertsService,
    AdvisoryLocks,
  ],
  exports: [AlertNotifier, AlertEvaluationService, AlertsService, AlertDeliveryService],
})
export class AlertsCoreModule {}

/** api role: rules, destinations, test notifications, incidents and the delivery log. */
@Module({ imports: [AlertsCoreModule], controllers: [AlertRulesController, AlertDestinationsController, AlertIncidentsController] })
export class AlertsApiModule {}

/** worker role: evaluates the rules when the recurring job says so and delivers the notifications. */
@Module({ imports: [AlertsCoreModule], providers: [AlertEvaluationProcessor, AlertDeliveryProcessor] })
export class AlertsWorkerModule {}
