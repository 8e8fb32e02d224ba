import { createServer, request } from 'node:http';
import { type AddressInfo, connect as netConnect, createServer as netServer } from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { McpConfigError, McpIntegrationSection, Session } from '../../src/index.js';
import { allowListPolicy, startEgressProxy } from '../../src/isolation/egress-proxy.js';

describe('allowListPolicy', () => {
  const policy = allowListPolicy(['api.example.com', '*.cdn.example.com', '127.0.0.1:8080']);

  it('allows listed hosts, subdomains of a wildcard, and a host only on its port', () => {
    expect(policy('api.example.com', 443)).toBeUndefined();
    expect(policy('API.Example.com', 80)).toBeUndefined();
    expect(policy('img.cdn.example.com', 443)).toBeUndefined();
    expect(policy('127.0.0.1', 8080)).toBeUndefined();
  });

  it('matches an IPv6 address with or without its brackets', () => {
    const ipv6 = allowListPolicy(['[::1]:8080', '[FD00::2]']);
    expect(ipv6('[::1]', 8080)).toBeUndefined();
    expect(ipv6('::1', 8080)).toBeUndefined();
    expect(ipv6('[fd00::2]', 443)).toBeUndefined();
    expect(ipv6('[::1]', 8081)).toBeDefined();
  });

  it('refuses everything else, naming the destination and the list', () => {
    expect(policy('cdn.example.com', 443)).toMatch(
      /^cdn\.example\.com:443 is not on the allow-list/,
    );
    expect(policy('evil-api.example.com', 443)).toBeDefined();
    expect(policy('api.example.com.evil.test', 443)).toBeDefined();
    expect(policy('127.0.0.1', 8081)).toContain('127.0.0.1:8080');
    expect(allowListPolicy([])('anything', 1)).toContain('(empty)');
  });
});

describe('isolation.network in the config', () => {
  const make = (isolation: object) =>
    new McpIntegrationSection({
      session: new Session(),
      servers: [{ name: 's', transport: { type: 'stdio', command: 'node' }, isolation }],
    });

  it('takes a list of host names', () => {
    expect(() =>
      make({ network: { allow: ['api.example.com', '*.x.test', '10.0.0.1:443'] } }),
    ).not.toThrow();
  });

  it('refuses anything else, and an isolated transport, with the rule', () => {
    expect(() => make({ network: { allow: ['http://x'] } })).toThrow(McpConfigError);
    expect(() => make({ network: ['x'] })).toThrow(
      'servers[0].isolation.network must be { allow: [...] }',
    );
    expect(() =>
      make({
        transport: { type: 'stdio', command: 'node' },
        network: { allow: ['x.test'] },
      }),
    ).toThrow('applies to the sandbox only');
  });
});

describe('startEgressProxy recheck', () => {
  it('cuts an absolute-form request in flight that the policy now refuses, and reports it', async () => {
    // An allowed host that streams its answer and never ends it.
    const upstream = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('first;');
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', () => resolve()));
    const port = (upstream.address() as AddressInfo).port;
    let open = true;
    const denied: string[] = [];
    const proxy = await startEgressProxy({
      policy: (host) => (open ? undefined : `closed for ${host}`),
      onDenied: (host, _port, reason) => denied.push(`${host} ${reason}`),
    });
    try {
      const body = await new Promise<string>((resolve, reject) => {
        const req = request({
          socketPath: path.join(proxy.directory, proxy.socketName),
          path: `http://127.0.0.1:${String(port)}/`,
        });
        req.on('response', (res) => {
          let text = '';
          res.on('data', (chunk: Buffer) => {
            text += chunk.toString('utf8');
            open = false;
            proxy.recheck();
          });
          res.on('close', () => resolve(text));
        });
        req.on('error', reject);
        req.end();
      });
      expect(body).toBe('first;');
      expect(denied).toEqual(['127.0.0.1 closed for 127.0.0.1']);
    } finally {
      await proxy.close();
      upstream.closeAllConnections();
      await new Promise<void>((resolve) => upstream.close(() => resolve()));
    }
  });

  it('tunnels to an allowed IPv6 address written with brackets', async () => {
    const upstream = netServer((socket) => socket.end('hello over ipv6'));
    await new Promise<void>((resolve) => upstream.listen(0, '::1', () => resolve()));
    const port = (upstream.address() as AddressInfo).port;
    const proxy = await startEgressProxy({ policy: allowListPolicy([`[::1]:${String(port)}`]) });
    try {
      const reply = await new Promise<string>((resolve, reject) => {
        const socket = netConnect(path.join(proxy.directory, proxy.socketName), () =>
          socket.write(`CONNECT [::1]:${String(port)} HTTP/1.1\r\n\r\n`),
        );
        let text = '';
        socket.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
        socket.on('close', () => resolve(text));
        socket.on('error', reject);
      });
      expect(reply).toContain('200 Connection Established');
      expect(reply).toContain('hello over ipv6');
    } finally {
      await proxy.close();
      await new Promise<void>((resolve) => upstream.close(() => resolve()));
    }
  });

  it('lets no upload go on after its answer, once the level refuses its host', async () => {
    // The allowed host answers at once and keeps reading the request body.
    let received = '';
    const upstream = createServer((req, res) => {
      req.on('data', (chunk: Buffer) => (received += chunk.toString('utf8')));
      res.writeHead(200, { 'content-length': '2' }).end('ok');
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', () => resolve()));
    const port = (upstream.address() as AddressInfo).port;
    let open = true;
    const proxy = await startEgressProxy({ policy: () => (open ? undefined : 'closed now') });
    const socket = netConnect(path.join(proxy.directory, proxy.socketName));
    socket.on('error', () => undefined);
    const chunk = (text: string): boolean =>
      socket.write(`${text.length.toString(16)}\r\n${text}\r\n`);
    try {
      socket.write(
        `POST http://127.0.0.1:${String(port)}/up HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\n\r\n`,
      );
      chunk('before;');
      await new Promise<void>((resolve) => socket.once('data', () => resolve()));
      await expect.poll(() => received).toBe('before;');
      open = false;
      proxy.recheck();
      chunk('after;');
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(received).toBe('before;');
    } finally {
      socket.destroy();
      await proxy.close();
      upstream.closeAllConnections();
      await new Promise<void>((resolve) => upstream.close(() => resolve()));
    }
  });

  it('reaches an allowed IPv6 address by an absolute-form request', async () => {
    const upstream = createServer((_req, res) => res.end('hello from ::1'));
    await new Promise<void>((resolve) => upstream.listen(0, '::1', () => resolve()));
    const port = (upstream.address() as AddressInfo).port;
    const proxy = await startEgressProxy({ policy: allowListPolicy([`[::1]:${String(port)}`]) });
    try {
      const body = await new Promise<string>((resolve, reject) => {
        const req = request({
          socketPath: path.join(proxy.directory, proxy.socketName),
          path: `http://[::1]:${String(port)}/`,
        });
        req.on('response', (res) => {
          let text = '';
          res.on('data', (data: Buffer) => (text += data.toString('utf8')));
          res.on('end', () => resolve(text));
        });
        req.on('error', reject);
        req.end();
      });
      expect(body).toBe('hello from ::1');
    } finally {
      await proxy.close();
      await new Promise<void>((resolve) => upstream.close(() => resolve()));
    }
  });

  it('ends the answer when the allowed host resets in the middle of it, and close() cuts what is in flight', async () => {
    // Headers and part of the body, then a reset: the request errors after its answer began.
    const upstream = netServer((socket) => {
      socket.once('data', () => {
        socket.write('HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\npartial');
        setTimeout(() => socket.resetAndDestroy(), 50);
      });
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', () => resolve()));
    const port = (upstream.address() as AddressInfo).port;
    const proxy = await startEgressProxy({ policy: () => undefined });
    const get = (target: string): Promise<number | undefined> =>
      new Promise((resolve) => {
        const req = request({
          socketPath: path.join(proxy.directory, proxy.socketName),
          path: target,
        });
        req.on('response', (res) => {
          res.on('data', () => undefined);
          res.on('error', () => undefined);
          res.on('close', () => resolve(res.statusCode));
        });
        req.on('error', () => resolve(undefined));
        req.end();
      });
    try {
      // Before the mend, writing a 502 after the headers threw in the proxy's process.
      expect(await get(`http://127.0.0.1:${String(port)}/`)).toBe(200);
      // An answer that never ends: close() ends it instead of waiting for it.
      const endless = createServer((_req, res) => {
        res.writeHead(200);
        res.write('start');
      });
      await new Promise<void>((resolve) => endless.listen(0, '127.0.0.1', () => resolve()));
      const endlessPort = (endless.address() as AddressInfo).port;
      const pending = get(`http://127.0.0.1:${String(endlessPort)}/`);
      await new Promise((resolve) => setTimeout(resolve, 100));
      await proxy.close();
      expect(await pending).toBe(200);
      endless.closeAllConnections();
      await new Promise<void>((resolve) => endless.close(() => resolve()));
    } finally {
      await proxy.close();
      await new Promise<void>((resolve) => upstream.close(() => resolve()));
    }
  });

  it('survives an allowed host whose answer Node cannot pass on, and closes despite an endless refused upload', async () => {
    const upstream = netServer((socket) => {
      socket.once('data', () => socket.end('HTTP/1.1 000 Zero\r\ncontent-length: 0\r\n\r\n'));
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', () => resolve()));
    const port = (upstream.address() as AddressInfo).port;
    const proxy = await startEgressProxy({
      policy: (_host, to) => (to === port ? undefined : 'not this one'),
    });
    const socketPath = path.join(proxy.directory, proxy.socketName);
    try {
      const answered = await new Promise<string>((resolve) => {
        const req = request({ socketPath, path: `http://127.0.0.1:${String(port)}/` });
        req.on('response', (res) => resolve(String(res.statusCode)));
        req.on('error', (error) => resolve(error.message));
        req.end();
      });
      expect(answered).toMatch(/socket hang up|ECONNRESET/);
      // A refused upload that never ends.
      const refused = netConnect(socketPath, () =>
        refused.write(
          'POST http://127.0.0.1:1/ HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\n\r\n5\r\nhello\r\n',
        ),
      );
      refused.on('error', () => undefined);
      await new Promise((resolve) => setTimeout(resolve, 100));
      const closed = await Promise.race([
        proxy.close().then(() => 'closed'),
        new Promise((resolve) => setTimeout(() => resolve('still open'), 3_000)),
      ]);
      expect(closed).toBe('closed');
      refused.destroy();
    } finally {
      await proxy.close();
      await new Promise<void>((resolve) => upstream.close(() => resolve()));
    }
  });
});

describe('startEgressProxy headers', () => {
  it('sends the checked authority as Host, and none of the hop’s own or proxy headers', async () => {
    // A front end that routes by Host: what it is sent is what it would route on.
    const received: Record<string, string | string[] | undefined>[] = [];
    const front = createServer((req, res) => {
      received.push(req.headers);
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      req.on('end', () => res.end(`got ${body}`));
    });
    await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', () => resolve()));
    const port = (front.address() as AddressInfo).port;
    const proxy = await startEgressProxy({ policy: allowListPolicy([`127.0.0.1:${port}`]) });
    try {
      const answer = await new Promise<string>((resolve, reject) => {
        const req = request({
          socketPath: path.join(proxy.directory, proxy.socketName),
          method: 'POST',
          path: `http://127.0.0.1:${String(port)}/upload?x=1`,
          headers: {
            host: 'attacker-origin.example',
            'proxy-authorization': 'Basic c2VjcmV0',
            connection: 'keep-alive, x-hop',
            'x-hop': 'only for the proxy',
            'x-kept': 'end to end',
          },
        });
        req.on('response', (res) => {
          let text = '';
          res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
          res.on('end', () => resolve(text));
        });
        req.on('error', reject);
        req.end('payload');
      });
      expect(answer).toBe('got payload');
      expect(received).toHaveLength(1);
      expect(received[0]).toMatchObject({ host: `127.0.0.1:${port}`, 'x-kept': 'end to end' });
      expect(received[0]).not.toHaveProperty('proxy-authorization');
      expect(received[0]).not.toHaveProperty('x-hop');
    } finally {
      await proxy.close();
      await new Promise<void>((resolve) => front.close(() => resolve()));
    }
  });
});
