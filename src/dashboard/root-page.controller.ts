import { Controller, Get, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { FastifyReply } from 'fastify';

// A wrench on the dashboard's blue: browsers ask for /favicon.ico on every page, and a 404 there is noise in the log.
const FAVICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#2563eb"/>' +
  '<path d="M9 23l8-8m2-6a4 4 0 105 5l-3-1-1-3z" stroke="#fff" stroke-width="3" fill="none" stroke-linecap="round"/></svg>';

/** The server's root: a person who opens http://localhost:3000 lands on the dashboard. */
@ApiExcludeController()
@Controller()
export class RootPageController {
  @Get()
  root(@Res() reply: FastifyReply) {
    reply.redirect('/dashboard', 302);
  }

  @Get('favicon.ico')
  favicon(@Res() reply: FastifyReply) {
    reply.status(200).header('content-type', 'image/svg+xml').header('cache-control', 'public, max-age=86400').send(FAVICON_SVG);
  }
}
