import { Global, Module } from '@nestjs/common';
import { Logger } from 'pino';

export const ROOT_LOGGER = Symbol('ROOT_LOGGER');

@Global()
@Module({})
export class LoggingModule {
  static forRoot(logger: Logger) {
    return { module: LoggingModule, providers: [{ provide: ROOT_LOGGER, useValue: logger }], exports: [ROOT_LOGGER] };
  }
}
