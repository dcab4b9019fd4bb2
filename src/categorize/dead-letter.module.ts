import { Module } from '@nestjs/common';
import { DeadLetterController } from './dead-letter.controller';
import { DeadLetterService } from './dead-letter.service';

@Module({ providers: [DeadLetterService], exports: [DeadLetterService] })
export class DeadLetterModule {}

/** The dead-letter admin API (api role): lists and replays parked batches. */
@Module({ imports: [DeadLetterModule], controllers: [DeadLetterController] })
export class DeadLetterAdminModule {}
