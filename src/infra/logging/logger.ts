import { LoggerService } from '@nestjs/common';
import pino, { Logger } from 'pino';
import { LogLevel } from '../../config/config';

/** One JSON line per log record on stdout (pino), so logs can be shipped and queried as-is. */
export function createRootLogger(level: LogLevel): Logger {
  return pino({
    level,
    base: { service: 'toolcoach', pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
  });
}

/**
 * Nest's start-up chatter (one line per module and per route) is debug: at info the start-up log fits on one screen.
 * Anything else these contexts say at warn or above stays as loud as Nest made it.
 */
const NEST_BOOT_CONTEXTS = new Set(['NestFactory', 'InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestApplication']);

/** Routes Nest's own logging through pino, keeping Nest's context name as a field (`nest` when it names none). */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}

  log(message: unknown, context?: string) {
    this.write(context && NEST_BOOT_CONTEXTS.has(context) ? 'debug' : 'info', message, context);
  }
  error(message: unknown, trace?: string, context?: string) {
    this.logger.error({ context: context ?? 'nest', trace }, String(message));
  }
  warn(message: unknown, context?: string) {
    this.write('warn', message, context);
  }
  debug(message: unknown, context?: string) {
    this.write('debug', message, context);
  }
  verbose(message: unknown, context?: string) {
    this.write('trace', message, context);
  }
  fatal(message: unknown, context?: string) {
    this.write('fatal', message, context);
  }

  private write(level: 'info' | 'warn' | 'debug' | 'trace' | 'fatal', message: unknown, context?: string) {
    const fields = { context: context ?? 'nest' };
    if (typeof message === 'object' && message !== null) this.logger[level]({ ...fields, ...message });
    else this.logger[level](fields, String(message));
  }
}
