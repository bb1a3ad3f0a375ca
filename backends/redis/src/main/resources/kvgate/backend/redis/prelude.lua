-- Shared by every item script (prepended when the script is loaded). An item is one string: a 20-byte header
-- (flags: 4 bytes, CAS: 8, expiry in epoch milliseconds or 0: 8, all big-endian) followed by the value.
-- KEYS[1] is the item, KEYS[2] the index shard of its namespace (same hash slot): a sorted set of client keys scored
-- by their item's expiry (+inf for never). ARGV[1] is the client's key, ARGV[2] the gateway's time in epoch
-- milliseconds: expiry is judged by that one clock, the one the gateway's reads use, never by Redis's.
local HEADER = '>I4I8I8'
local NOW = tonumber(ARGV[2])
-- Index entries of expired items taken back per write (Redis drops the items, not their entries): a bound on
-- one write's work that still outpaces the one entry a write adds.
local SWEEP = 32

local function now_micros()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000000 + tonumber(t[2])
end

-- The item, or nil when there is none or it expired by NOW.
local function read()
  local raw = redis.call('GET', KEYS[1])
  if not raw then
    return nil
  end
  local flags, cas, expires = struct.unpack(HEADER, raw)
  if expires ~= 0 and expires <= NOW then
    return nil
  end
  return {raw = raw, flags = flags, cas = cas, expires = expires, value = string.sub(raw, 21)}
end

-- The client's CAS arrives as the 8 header bytes, so it is compared exactly whatever its size.
local function cas_differs(item, wanted)
  return wanted ~= '' and wanted ~= string.sub(item.raw, 5, 12)
end

-- Unique per key while the key lives, and never below the server's clock in microseconds (below 2^53, so exact
-- in Lua's numbers): no cluster-wide counter, which would live in another hash slot. Uniqueness needs one clock
-- that only moves forward where the key lives, which Redis's is; expiry uses the gateway's (NOW) instead.
local function next_cas(item)
  local micros = now_micros()
  if item and item.cas >= micros then
    return item.cas + 1
  end
  return micros
end

local function sweep()
  local passed = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', NOW, 'LIMIT', 0, SWEEP)
  if #passed > 0 then
    redis.call('ZREM', KEYS[2], unpack(passed))
  end
end

local function remove()
  redis.call('DEL', KEYS[1])
  redis.call('ZREM', KEYS[2], ARGV[1])
  sweep()
end

-- Writes the item, or removes it when it is already expired; returns the raw item. Redis's own expiry is set
-- relative to NOW (PX), so it falls due after the same span whatever Redis's clock says.
local function write(value, flags, cas, expires)
  local raw = struct.pack(HEADER, flags, cas, expires) .. value
  if expires ~= 0 and expires <= NOW then
    remove()
    return raw
  end
  sweep()
  if expires == 0 then
    redis.call('SET', KEYS[1], raw)
    redis.call('ZADD', KEYS[2], '+inf', ARGV[1])
  else
    redis.call('SET', KEYS[1], raw, 'PX', expires - NOW)
    redis.call('ZADD', KEYS[2], expires, ARGV[1])
  end
  return raw
end
