import { Controller, Get, Param, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { FastifyReply } from 'fastify';
import { ApiError } from '../infra/http/api-error';
import { DashboardAssets } from './dashboard-assets';

/** The web dashboard: static files only, no key needed; the page itself asks for a key and calls the REST API. */
@ApiExcludeController()
@Controller('dashboard')
export class DashboardPageController {
  constructor(private readonly assets: DashboardAssets) {}

  @Get()
  page(@Res() reply: FastifyReply) {
    this.send(reply, 'index.html');
  }

  @Get('assets/:file')
  asset(@Param('file') file: string, @Res() reply: FastifyReply) {
    this.send(reply, file);
  }

  private send(reply: FastifyReply, name: string) {
    const asset = this.assets.find(name);
    if (!asset) throw new ApiError(404, 'not_found', `No dashboard asset ${JSON.stringify(name.slice(0, 100))}`);
    reply.status(200).header('content-type', asset.contentType).header('cache-control', 'no-cache').send(asset.body);
  }
}
