/**
 * Lua scripts of the Redis session store. Each runs atomically on the
 * server, so concurrent workers cannot interleave a read and a write.
 *
 * Layout, per session (the `{…}` hash tag keeps a session's keys on one
 * cluster slot):
 * - `<prefix>:{<id>}:private` — hash: `level` and `d:<dataset>` → level name
 * - `<prefix>:{<id>}:version` — integer, INCR'd by every merge that raised something
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
 * Max-merge. KEYS: private, version. ARGV: the change channel, the message
 * naming the session, the level, then dataset/level pairs. A stored level
 * the script does not know counts as the highest, so a damaged value is
 * never overwritten downwards. When something rose it increments the version
 * and publishes the message, inside the script: Redis registers the message
 * for every subscriber before it answers the writer. Returns
 * `{ version, HGETALL private }`.
 */
export const MERGE_PRIVATE_DATA = script(`
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
  -- A first version starts at the clock in microseconds, not at 1: rises come slower than
  -- one a microsecond, so after the data is lost (a flush, a delete) a new version is
  -- above any a worker saw before, and never equal to one it would skip its read for.
  if redis.call('EXISTS', KEYS[2]) == 0 then
    local now = redis.call('TIME')
    redis.call('SET', KEYS[2], now[1] .. string.format('%06d', tonumber(now[2])))
  end
  version = redis.call('INCR', KEYS[2])
  redis.call('PUBLISH', ARGV[1], ARGV[2])
else
  -- As stored: the client checks it is a count (tonumber would end the reply at a nil).
  version = redis.call('GET', KEYS[2]) or '0'
end
return { version, redis.call('HGETALL', KEYS[1]) }
`);

/**
 * Consistent read. KEYS: private, version[, slices].
 * Returns `{ version, HGETALL private[, HGETALL slices] }`.
 */
export const READ_SESSION = script(`
-- As stored: the client checks it is a count (tonumber would end the reply at a nil).
local version = redis.call('GET', KEYS[2]) or '0'
if #KEYS >= 3 then
  return { version, redis.call('HGETALL', KEYS[1]), redis.call('HGETALL', KEYS[3]) }
end
return { version, redis.call('HGETALL', KEYS[1]) }
`);
