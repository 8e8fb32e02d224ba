// Loaded with `node --import <this file>` (through NODE_OPTIONS) into the
// MCP conformance suite, whose scenario servers call `listen(0)` with no host
// (every interface) and read `server.address().port` on the next line.
// `loopback-preload.mjs` inserts a host, which makes Node bind after a DNS
// lookup, one tick later, so `address()` is still null there. This preload
// binds a TCP handle to 127.0.0.1 synchronously instead and listens on it,
// so the port is known at once and nothing listens beyond loopback. Forms
// with an explicit host, a path, an fd or a handle pass through unchanged;
// if the synchronous bind fails, the listen goes ahead with the host added.
/* global process */
import net from 'node:net';

const LOOPBACK_HOST = '127.0.0.1';
const originalListen = net.Server.prototype.listen;
// The public API has no synchronous bind; tcp_wrap is on process.binding's allow list.
const { TCP, constants } = process.binding('tcp_wrap');

function isPort(value) {
  if (typeof value === 'number') return true;
  return typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value));
}

function isTcpOptions(value) {
  if (value === null || typeof value !== 'object') return false;
  if (value instanceof net.Server || value instanceof net.Socket) return false;
  return !('path' in value) && !('fd' in value) && !('handle' in value) && !('_handle' in value);
}

/** The port of a host-less TCP listen, or undefined for any other form. */
function hostlessPort(args) {
  const [first, second] = args;
  if (first === undefined || first === null || typeof first === 'function') return 0;
  if (isPort(first)) return typeof second === 'string' ? undefined : Number(first);
  if (isTcpOptions(first) && (first.host === undefined || first.host === null)) {
    return Number(first.port ?? 0);
  }
  return undefined;
}

net.Server.prototype.listen = function listenOnLoopbackNow(...args) {
  const port = hostlessPort(args);
  if (port === undefined) return originalListen.apply(this, args);
  const callback = args.find((arg) => typeof arg === 'function');
  const handle = new TCP(constants.SERVER);
  if (handle.bind(LOOPBACK_HOST, port) !== 0) {
    handle.close();
    const options = { port, host: LOOPBACK_HOST };
    return callback
      ? originalListen.call(this, options, callback)
      : originalListen.call(this, options);
  }
  return callback ? originalListen.call(this, handle, callback) : originalListen.call(this, handle);
};
