-- Shared by every item script (prepended when the script is loaded). An item is one string: a 20-byte header
-- (flags: 4 bytes, CAS: 8, expiry in epoch milliseconds or 0: 8, all big-endian) followed by the value.
-- KEYS[1] is the item, KEYS[2] the index shard of its namespace (same hash slot): a sorted set of client keys scored
-- by their item's expiry (+inf for never), KEYS[3] the highest CAS handed out in that shard (same slot), KEYS[4] the
-- item's lease (same slot): '1' handed out, '2' stale, '3' both, absent for neither. ARGV[1] is the client's key,
-- ARGV[2] the gateway's time in epoch milliseconds: expiry is judged by that one clock, the one the gateway's reads
-- use, never by Redis's.
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
  -- cas_raw: the 8 bytes as stored, which a rewrite keeping the CAS writes back exactly (a number above 2^53, as a
  -- client may choose, would not survive Lua's doubles).
  return {raw = raw, flags = flags, cas = cas, cas_raw = string.sub(raw, 5, 12), expires = expires,
    value = string.sub(raw, 21)}
end

-- The client's CAS arrives as the 8 header bytes, so it is compared exactly whatever its size.
local function cas_differs(item, wanted)
  return wanted ~= '' and wanted ~= item.cas_raw
end

-- The answer refusing an operation on the item read: NOT_FOUND without one, EXISTS when a CAS is wanted and is not
-- the item's; nil when neither.
local function refused(item, wanted)
  if item == nil then
    return {'NOT_FOUND'}
  end
  if cas_differs(item, wanted) then
    return {'EXISTS'}
  end
  return nil
end

-- Above every CAS the key's shard handed out (its mark, KEYS[3]), so above every CAS the key ever had, even one
-- it had before it was deleted or expired, whatever Redis's clock did meanwhile (stepped back, or a replica
-- promoted whose clock is behind the old primary's: the mark is replicated with the items). Else the server's clock
-- in microseconds (below 2^53, so exact in Lua's numbers), which keeps CAS values apart across restarts that lose
-- the mark with the items. Per shard, in the key's slot: a cluster-wide counter would live in another hash slot.
-- Expiry uses the gateway's clock (NOW) instead.
-- A CAS the client chose (memcached's meta E: its 8 bytes, '' or nil for none) is taken as it is, and leaves the
-- mark alone: the client numbers its own versions, and may reuse one. The CAS after a chosen one counts on from it
-- only far below 2^53: counting on from one near 2^53 would bring the shard's mark, one write at a time, to where
-- Lua's numbers stop telling n from n + 1, and every later CAS of the shard would be the same. Past that point the
-- CAS is the clock's or the mark's, which differs from the chosen one all the same.
local COUNTABLE = 9007199254740992 - 1099511627776 -- 2^53 - 2^40: room for 2^40 writes above
local function next_cas(item, chosen)
  if chosen and chosen ~= '' then
    return chosen
  end
  local cas = now_micros()
  local mark = tonumber(redis.call('GET', KEYS[3]) or '0')
  if item and item.cas >= cas and item.cas < COUNTABLE then
    cas = item.cas + 1
  end
  if mark >= cas and mark < COUNTABLE then
    cas = mark + 1
  end
  if item and cas == item.cas then
    cas = cas + 1
  end
  if cas > mark then
    -- Formatted here: Redis turns a Lua number into a string with 14 digits only.
    redis.call('SET', KEYS[3], string.format('%.0f', cas))
  end
  return cas
end

-- Whether CAS a is below CAS b, both as their 8 big-endian bytes: exact for all 64 bits, where Lua's numbers are not
-- beyond 2^53 (and string comparison follows the server's locale).
local function cas_below(a, b)
  for i = 1, 8 do
    local x, y = string.byte(a, i), string.byte(b, i)
    if x ~= y then
      return x < y
    end
  end
  return false
end

local function sweep()
  local passed = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', NOW, 'LIMIT', 0, SWEEP)
  if #passed > 0 then
    redis.call('ZREM', KEYS[2], unpack(passed))
  end
end

local function remove()
  redis.call('DEL', KEYS[1], KEYS[4])
  redis.call('ZREM', KEYS[2], ARGV[1])
  sweep()
end

-- The lease of the item read (0: neither stale nor handed out).
local function lease()
  return tonumber(redis.call('GET', KEYS[4]) or '0')
end

-- Writes the item with its lease (0 or nil for none, as a write of a new value leaves it), or removes it when it is
-- already expired; returns the raw item. The CAS is a number, or its 8 bytes (chosen, or kept as read). Redis's own expiry is set relative to NOW (PX), so it falls due after the
-- same span whatever Redis's clock says; the lease lives as long as its item.
local function write(value, flags, cas, expires, leased)
  if type(cas) ~= 'string' then
    cas = struct.pack('>I8', cas)
  end
  local raw = struct.pack('>I4', flags) .. cas .. struct.pack('>I8', expires) .. value
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
  if leased == nil or leased == 0 then
    redis.call('DEL', KEYS[4])
  elseif expires == 0 then
    redis.call('SET', KEYS[4], leased)
  else
    redis.call('SET', KEYS[4], leased, 'PX', expires - NOW)
  end
  return raw
end
