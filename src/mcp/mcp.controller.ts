import { Controller, Delete, Get, HttpCode, Post, Req, Res, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { WithRouteFlags } from '../infra/http/route-flags';
import { ApiKeyGuard, type AuthenticatedRequest } from '../tenancy/api-key.guard';
import { McpService } from './mcp.service';

/** JSON-RPC's answer to a method this stateless server does not serve over HTTP (no SSE stream, no session to end). */
const NOT_ALLOWED = {
  jsonrpc: '2.0',
  error: { code: -32000, message: 'Method not allowed: this MCP server is stateless; send JSON-RPC requests with POST' },
  id: null,
};

/**
 * POST /mcp: the Model Context Protocol over Streamable HTTP (docs/mcp-server.md), behind the project's API key like
 * every /v1 route. A read key may call it; its write tools refuse such a key themselves.
 */
// JSON-RPC on one URL: its methods and tools are listed by the server itself (tools/list), not in the OpenAPI document
@ApiExcludeController()
@Controller('mcp')
@UseGuards(ApiKeyGuard)
export class McpController {
  constructor(private readonly mcp: McpService) {}

  @Post()
  @WithRouteFlags({ admitsReadOnlyKeys: true })
  async post(@Req() request: AuthenticatedRequest, @Res() reply: FastifyReply): Promise<void> {
    const { projectId, scope } = request.project;
    // the SDK writes the answer on the raw response itself, past Fastify's hooks: the key's answer is private here
    reply.raw.setHeader('cache-control', 'private, no-store');
    reply.hijack();
    await this.mcp.handle({ projectId, scope }, request.raw, reply.raw, request.body);
  }

  @Get()
  @HttpCode(405)
  openStream(@Res({ passthrough: true }) reply: FastifyReply) {
    reply.header('allow', 'POST');
    return NOT_ALLOWED;
  }

  @Delete()
  @HttpCode(405)
  endSession(@Res({ passthrough: true }) reply: FastifyReply) {
    reply.header('allow', 'POST');
    return NOT_ALLOWED;
  }
}
