-- Shared by every item script (prepended when the script is loaded). An item is one string: a 20-byte header
-- (flags: 4 bytes, CAS: 8, expiry in epoch milliseconds or 0: 8, all big-endian) followed by the value.
-- KEYS[1] is the item, KEYS[2] the index shard of its namespace (same hash slot), ARGV[1] the client's key.
local HEADER = '>I4I8I8'

local function now_micros()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000000 + tonumber(t[2])
end

local function read()
  local raw = redis.call('GET', KEYS[1])
  if not raw then
    return nil
  end
  local flags, cas, expires = struct.unpack(HEADER, raw)
  return {raw = raw, flags = flags, cas = cas, expires = expires, value = string.sub(raw, 21)}
end

-- The client's CAS arrives as the 8 header bytes, so it is compared exactly whatever its size.
local function cas_differs(item, wanted)
  return wanted ~= '' and wanted ~= string.sub(item.raw, 5, 12)
end

-- Unique per key while the key lives, and never below the server's clock in microseconds (below 2^53, so exact
-- in Lua's numbers): no cluster-wide counter, which would live in another hash slot.
local function next_cas(item)
  local micros = now_micros()
  if item and item.cas >= micros then
    return item.cas + 1, micros
  end
  return micros, micros
end

local function remove()
  redis.call('DEL', KEYS[1])
  redis.call('SREM', KEYS[2], ARGV[1])
end

-- Writes the item, or removes it when it is already expired; returns the raw item written.
local function write(value, flags, cas, expires, micros)
  if expires ~= 0 and expires <= math.floor(micros / 1000) then
    remove()
    return struct.pack(HEADER, flags, cas, expires) .. value
  end
  local raw = struct.pack(HEADER, flags, cas, expires) .. value
  redis.call('SET', KEYS[1], raw)
  if expires ~= 0 then
    redis.call('PEXPIREAT', KEYS[1], expires)
  end
  redis.call('SADD', KEYS[2], ARGV[1])
  return raw
end
