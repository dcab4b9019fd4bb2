import { Module } from '@nestjs/common';
import { EventQueries } from './event.queries';
import { EventsController } from './events.controller';

@Module({ controllers: [EventsController], providers: [EventQueries] })
export class DashboardModule {}
