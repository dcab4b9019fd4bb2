import { Controller, Get, Res } from '@nestjs/common';
import { FastifyReply } from 'fastify';
import { ApiRoute } from '../http/openapi/api-route.decorator';
import { QueueProducer } from '../queue/queue.producer';
import { DatabaseHealthRepository } from './database-health.repository';
import { HEALTH_RESPONSE, READINESS_RESPONSE } from './health-responses.schemas';

const CHECK_TIMEOUT_MS = 2000;
const READINESS_RETRY_AFTER_SECONDS = 5;

@Controller()
export class HealthController {
  constructor(
    private readonly database: DatabaseHealthRepository,
    private readonly producer: QueueProducer,
  ) {}

  /** The process is up and serving. */
  @Get('healthz')
  @ApiRoute({ summary: 'The process is up', response: HEALTH_RESPONSE, isPublic: true })
  health() {
    return { status: 'ok' };
  }

  /**
   * Postgres answers and Redis takes writes: 200 when both do, 503 naming the one that does not (and, for Redis, why:
   * a Redis that answers but refuses writes cannot queue an event either).
   */
  @Get('readyz')
  @ApiRoute({
    summary: 'Postgres answers and Redis takes writes (503 naming the one that does not)',
    response: READINESS_RESPONSE,
    isPublic: true,
  })
  async ready(@Res({ passthrough: true }) reply: FastifyReply) {
    const [postgres, redisProblem] = await Promise.all([this.database.isReachable(CHECK_TIMEOUT_MS), this.producer.findRedisProblem()]);
    const isReady = postgres && redisProblem === null;
    reply.status(isReady ? 200 : 503);
    if (!isReady) reply.header('retry-after', String(READINESS_RETRY_AFTER_SECONDS));
    const checks = { postgres: up(postgres), redis: up(redisProblem === null) };
    return {
      status: isReady ? 'ready' : 'unavailable',
      checks,
      ...(redisProblem ? { problems: { redis: redisProblem.slice(0, 300) } } : {}),
    };
  }
}

const up = (ok: boolean) => (ok ? 'up' : 'down');
