import { Inject, Injectable } from '@nestjs/common';
import { Logger } from 'pino';
import { ROOT_LOGGER } from '../infra/logging/logging.module';
import { JobHandler } from '../infra/queue/job-handler';
import { JobName } from '../infra/queue/queue.names';
import { AlertEvaluationService } from './alert-evaluation.service';

/**
 * Runs the recurring alert-evaluation job (every ALERT_EVALUATION_INTERVAL_MS, queue.schedules.ts); the service lets
 * one run per window evaluate. The evaluation reads only rollups and groups (bounded per rule), so a run costs a few
 * indexed queries per rule.
 */
@Injectable()
export class AlertEvaluationProcessor {
  private readonly logger: Logger;

  constructor(
    @Inject(ROOT_LOGGER) rootLogger: Logger,
    private readonly evaluation: AlertEvaluationService,
  ) {
    this.logger = rootLogger.child({ context: 'AlertEvaluationProcessor' });
  }

  @JobHandler(JobName.AlertEvaluation)
  async evaluate() {
    try {
      return await this.evaluation.evaluateWindow(new Date());
    } catch (error) {
      // the next occurrence tries again
      this.logger.error({ err: (error as Error).message }, 'alert evaluation failed');
      throw error;
    }
  }
}
