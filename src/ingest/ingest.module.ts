import { Module } from '@nestjs/common';
import { IngestController } from './ingest.controller';
import { IngestService } from './ingest.service';
import { OtlpProtobufCodec } from './otlp-protobuf-codec';
import { TracesController } from './traces.controller';
import { TracesService } from './traces.service';

@Module({ controllers: [IngestController, TracesController], providers: [IngestService, TracesService, OtlpProtobufCodec] })
export class IngestModule {}
