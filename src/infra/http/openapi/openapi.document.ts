import { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';

/**
 * Assembles the document from the controllers alone (each route's @ApiRoute), serves it at /openapi.json and
 * /openapi.yaml and a browsable UI at /docs. Nothing is added here: a route its controller does not describe is missing.
 */
export function setUpOpenApi(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('toolcoach')
    .setDescription('Tool-call events in, failure categories, error groups, rollup-backed stats and learned warnings out.')
    .setVersion('1')
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'a project API key' })
    .build();
  const document = SwaggerModule.createDocument(app, config);
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'openapi.json', yamlDocumentUrl: 'openapi.yaml' });
  return document;
}
