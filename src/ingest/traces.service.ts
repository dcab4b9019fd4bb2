import { Inject, Injectable } from '@nestjs/common';
import { Logger } from 'pino';
import { ApiError } from '../infra/http/api-error';
import { ROOT_LOGGER } from '../infra/logging/logging.module';
import { MAX_EVENTS_PER_BATCH } from './event.schemas';
import { IngestService } from './ingest.service';
import { OtlpProtobufCodec } from './otlp-protobuf-codec';
import { ExportTraceResult, mapOtlpTraces, OtlpBodyError } from './otlp-spans';

export interface TracesOutcome {
  response: ExportTraceResult;
  toolSpans: number;
  ignoredSpans: number;
}

@Injectable()
export class TracesService {
  private readonly logger: Logger;

  constructor(
    private readonly ingest: IngestService,
    private readonly protobuf: OtlpProtobufCodec,
    @Inject(ROOT_LOGGER) rootLogger: Logger,
  ) {
    this.logger = rootLogger.child({ context: 'TracesService' });
  }

  /**
   * Maps the tool spans of an OTLP export (parsed JSON, or the bytes of a binary protobuf one) to events and queues them
   * through the /v1/events path (one job).
   */
  async ingestTraces(projectId: string, body: unknown, now: Date = new Date()): Promise<TracesOutcome> {
    const mapping = this.mapOrReject(body);
    if (mapping.events.length > MAX_EVENTS_PER_BATCH) {
      throw new ApiError(413, 'too_many_events', `A request may hold at most ${MAX_EVENTS_PER_BATCH} tool spans`, {
        details: [
          { path: '/resourceSpans', message: `must hold at most ${MAX_EVENTS_PER_BATCH} tool spans, got ${mapping.events.length}` },
        ],
      });
    }
    const result = await this.ingest.ingestMapped(projectId, mapping.events, now);
    const problems = [
      ...mapping.rejected,
      ...result.rejected.flatMap(({ index, errors }) =>
        errors.map((e) => ({ path: mapping.spanPaths[index], message: `${e.path.replace(/^\/events\/\d+/, '') || 'event'} ${e.message}` })),
      ),
    ];
    const rejectedSpans = mapping.rejected.length + result.rejected.length;
    const toolSpans = mapping.events.length + mapping.rejected.length;
    const counts = { projectId, toolSpans, accepted: result.accepted, rejectedSpans, ignoredSpans: mapping.ignoredSpans };
    if (rejectedSpans === 0) {
      this.logger.debug(counts, 'otlp traces');
      return { response: {}, toolSpans, ignoredSpans: mapping.ignoredSpans };
    }
    const errorMessage = problems
      .slice(0, 20)
      .map((p) => `${p.path}: ${p.message}`)
      .join('; ');
    // the exporter only counts a partial success, so this line is where its reasons can be read
    this.logger.info({ ...counts, errorMessage }, 'otlp traces: spans rejected');
    return { response: { partialSuccess: { rejectedSpans, errorMessage } }, toolSpans, ignoredSpans: mapping.ignoredSpans };
  }

  private mapOrReject(body: unknown) {
    try {
      if (!Buffer.isBuffer(body)) return mapOtlpTraces(body);
      const decoded = this.protobuf.decodeRequest(body);
      return mapOtlpTraces(decoded.body, decoded.refusedSpans);
    } catch (error) {
      if (!(error instanceof OtlpBodyError)) throw error;
      throw new ApiError(400, 'invalid_body', 'Body is not an OTLP ExportTraceServiceRequest', { details: error.details });
    }
  }
}
