import { BeforeApplicationShutdown, Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { Logger } from 'pino';
import { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';
import { ROOT_LOGGER } from '../infra/logging/logging.module';
import { AlertEvaluationService } from './alert-evaluation.service';

/**
 * Ticks every ALERT_EVALUATION_INTERVAL_MS on every worker; the service lets one worker per window evaluate. The
 * evaluation reads only rollups and groups (bounded per rule), so a tick costs a few indexed queries per rule.
 */
@Injectable()
export class AlertEvaluationScheduler implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private timer?: NodeJS.Timeout;
  private running?: Promise<unknown>;
  private readonly logger: Logger;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(ROOT_LOGGER) rootLogger: Logger,
    private readonly evaluation: AlertEvaluationService,
  ) {
    this.logger = rootLogger.child({ context: 'AlertEvaluationScheduler' });
  }

  onApplicationBootstrap() {
    this.timer = setInterval(() => this.tick(new Date()), this.config.alertEvaluationIntervalMs);
    this.timer.unref();
  }

  private tick(now: Date) {
    if (this.running) return;
    this.running = this.evaluation
      .evaluateWindow(now)
      .catch((error: unknown) => this.logger.error({ err: (error as Error).message }, 'alert evaluation failed'))
      .finally(() => (this.running = undefined));
  }

  async beforeApplicationShutdown() {
    clearInterval(this.timer);
    await this.running;
  }
}
