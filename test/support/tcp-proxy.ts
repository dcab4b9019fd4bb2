import { createServer, Server, Socket, connect } from 'node:net';

/**
 * A TCP proxy of the test's own between the app and a shared service (Postgres, Redis): `cut()` drops every
 * connection and refuses new ones, `restore()` lets them through again. The shared service itself is never touched.
 */
export class TcpProxy {
  private server?: Server;
  private readonly sockets = new Set<Socket>();
  private isCut = false;
  port = 0;

  constructor(
    private readonly targetPort: number,
    private readonly targetHost = '127.0.0.1',
  ) {}

  async start(): Promise<number> {
    this.server = createServer((client) => {
      if (this.isCut) return void client.destroy();
      const upstream = connect(this.targetPort, this.targetHost);
      this.track(client);
      this.track(upstream);
      client.pipe(upstream);
      upstream.pipe(client);
      const closeBoth = () => {
        client.destroy();
        upstream.destroy();
      };
      client.on('error', closeBoth).on('close', closeBoth);
      upstream.on('error', closeBoth).on('close', closeBoth);
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server!.address() as { port: number }).port;
    return this.port;
  }

  cut() {
    this.isCut = true;
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
  }

  restore() {
    this.isCut = false;
  }

  async close() {
    this.cut();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private track(socket: Socket) {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
  }
}

/** The same URL with host and port replaced by the proxy's. */
export function throughProxy(url: string, port: number): string {
  const parsed = new URL(url);
  parsed.hostname = '127.0.0.1';
  parsed.port = String(port);
  return parsed.toString();
}
