import { Module } from '@nestjs/common';
import { DeadLetterController } from './dead-letter.controller';
import { DeadLetterRepository } from './dead-letter.repository';
import { DeadLetterService } from './dead-letter.service';

@Module({ providers: [DeadLetterService, DeadLetterRepository], exports: [DeadLetterService] })
export class DeadLetterModule {}

/** The dead-letter admin API (api role): lists and replays a project's dead letters. */
@Module({ imports: [DeadLetterModule], controllers: [DeadLetterController] })
export class DeadLetterAdminModule {}
