/**
 * Lua scripts of the Redis session store. Each runs atomically on the
 * server, so concurrent workers cannot interleave a read and a write.
 *
 * Layout, per session (the `{…}` hash tag keeps a session's keys on one
 * cluster slot):
 * - `<prefix>:{<id>}:private` — hash: `level` and `d:<dataset>` → level name
 * - `<prefix>:{<id>}:version` — integer, a new one (above the last and the clock in
 *   microseconds) at every merge that raised something
 * - `<prefix>:{<id>}:slices`  — hash: slice name → JSON
 * - `<prefix>:{<id>}:events`  — stream of mirrored events
 * - channel `<prefix>:changes` — `<prefix>:{<id>}` of every session whose
 *   private-data state rose or was deleted
 */
import { createHash } from 'node:crypto';

/** A script and its SHA-1, for EVALSHA. */
export interface LuaScript {
  readonly source: string;
  readonly sha: string;
}

function script(source: string): LuaScript {
  return Object.freeze({ source, sha: createHash('sha1').update(source).digest('hex') });
}

/**
 * Lua: `stored_version()`, the version as stored (KEYS[1] private, KEYS[2]
 * version), `0` when none is, and `lost` when the private-data state is
 * gone while its version is kept: an eviction (`allkeys-*` policies) or a
 * `DEL` of one key. A reader that took the version for the state's would
 * never read again, and a session resumed then would come back public;
 * the client fails closed on it. (As stored: the client checks it is a
 * count; tonumber would end the reply at a nil.)
 */
const STORED_VERSION = `
local function stored_version()
  local stored = redis.call('GET', KEYS[2])
  if stored == false then return '0' end
  if redis.call('EXISTS', KEYS[1]) == 0 then return 'lost' end
  return stored
end`;

/**
 * Max-merge. KEYS: private, version. ARGV: the change channel, the message
 * naming the session, the level, then dataset/level pairs. A stored level
 * the script does not know counts as the highest, so a damaged value is
 * never overwritten downwards. When something rose it increments the version
 * and publishes the message, inside the script: Redis registers the message
 * for every subscriber before it answers the writer. Returns
 * `{ version, HGETALL private }`.
 */
export const MERGE_PRIVATE_DATA = script(`
${STORED_VERSION}
local ranks = { public = 0, internal = 1, confidential = 2, secret = 3 }
local changed = false
local function raise(field, level)
  local rank = ranks[level]
  if rank == nil then return redis.error_reply('unknown sensitivity ' .. tostring(level)) end
  local current = redis.call('HGET', KEYS[1], field)
  local known
  if current == false then
    -- A missing level is public; a missing dataset is below every level.
    if field == 'level' then known = 0 else known = -1 end
  else
    known = ranks[current] or 3
  end
  if known < rank then
    redis.call('HSET', KEYS[1], field, level)
    changed = true
  end
  return nil
end
local failed = raise('level', ARGV[3])
if failed then return failed end
for i = 4, #ARGV, 2 do
  failed = raise('d:' .. ARGV[i], ARGV[i + 1])
  if failed then return failed end
end
local version
if changed then
  -- A new version is above the clock in microseconds as well as above the stored one. Rises
  -- come slower than one a microsecond, so no version is handed out twice: not after the
  -- data is lost (a flush, a delete), nor after an older copy is restored (a snapshot taken
  -- before the last writes): a worker that saw a version never skips the read of another state.
  local now = redis.call('TIME')
  local clock = tonumber(now[1]) * 1000000 + tonumber(now[2])
  local stored = redis.call('GET', KEYS[2])
  local count = 0
  if stored ~= false then
    count = tonumber(stored)
    if count == nil then return redis.error_reply('stored version ' .. stored .. ' is not a count') end
  end
  version = string.format('%d', math.max(count + 1, clock))
  redis.call('SET', KEYS[2], version)
  redis.call('PUBLISH', ARGV[1], ARGV[2])
else
  version = stored_version()
end
return { version, redis.call('HGETALL', KEYS[1]) }
`);

/**
 * Consistent read. KEYS: private, version[, slices].
 * Returns `{ version, HGETALL private[, HGETALL slices] }`, the version as
 * `lost` when the state is gone while its version is kept.
 */
export const READ_SESSION = script(`
${STORED_VERSION}
local version = stored_version()
if #KEYS >= 3 then
  return { version, redis.call('HGETALL', KEYS[1]), redis.call('HGETALL', KEYS[3]) }
end
return { version, redis.call('HGETALL', KEYS[1]) }
`);

/** The version alone (see {@link STORED_VERSION}). KEYS: private, version. */
export const READ_VERSION = script(`
${STORED_VERSION}
return stored_version()
`);
