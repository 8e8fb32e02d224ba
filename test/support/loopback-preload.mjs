// Loaded with `node --import <this file>` into reference servers that only take
// a PORT and call `listen(PORT)`, which would bind every interface. It makes a
// TCP listen without an explicit host bind 127.0.0.1 instead, so a test never
// exposes a server to the network. An explicit host, a Unix socket path, a file
// descriptor or an inherited handle is left as it is.
import net from 'node:net';

const LOOPBACK_HOST = '127.0.0.1';
const originalListen = net.Server.prototype.listen;

/** True for a port given as a number or as a numeric string ("3001"). */
function isPort(value) {
  if (typeof value === 'number') return true;
  return typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value));
}

/** True for a `listen(options)` object that describes a TCP port rather than a path or handle. */
function isTcpOptions(value) {
  if (value === null || typeof value !== 'object') return false;
  if (value instanceof net.Server || value instanceof net.Socket) return false;
  return !('path' in value) && !('fd' in value) && !('handle' in value) && !('_handle' in value);
}

function loopbackArgs(args) {
  const [first, second] = args;
  // listen() and listen(callback) pick a random port on every interface.
  if (first === undefined || first === null) {
    return [{ port: 0, host: LOOPBACK_HOST }, ...args.slice(1)];
  }
  if (typeof first === 'function') {
    return [{ port: 0, host: LOOPBACK_HOST }, ...args];
  }
  // listen(port[, host][, backlog][, callback]): Node reads the backlog from the
  // second or third argument, so inserting the host keeps it.
  if (isPort(first)) {
    return typeof second === 'string' ? args : [first, LOOPBACK_HOST, ...args.slice(1)];
  }
  if (isTcpOptions(first) && (first.host === undefined || first.host === null)) {
    return [{ ...first, host: LOOPBACK_HOST }, ...args.slice(1)];
  }
  return args;
}

net.Server.prototype.listen = function listenOnLoopback(...args) {
  return originalListen.apply(this, loopbackArgs(args));
};
