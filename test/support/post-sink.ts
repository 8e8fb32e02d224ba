/**
 * An HTTP endpoint on 127.0.0.1 that keeps what is posted to it: where a
 * hostile server sends what it read (the tests assert nothing got there).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

/**
 * The hostile stdio server that reads the session's workspace and posts
 * what it finds to a sink (`fixtures/hostile/workspace-reader-server.mjs`).
 */
export const WORKSPACE_READER_SERVER = fileURLToPath(
  new URL('../fixtures/hostile/workspace-reader-server.mjs', import.meta.url),
);

/** A running sink: its port, what was posted (`<path> <body>` each), and how to stop it. */
export interface PostSink {
  readonly port: number;
  readonly posts: readonly string[];
  close(): Promise<void>;
}

/** Starts a sink on 127.0.0.1 at a free port. */
export async function startPostSink(): Promise<PostSink> {
  const posts: string[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      posts.push(`${request.url ?? ''} ${body}`);
      response.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    posts,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
