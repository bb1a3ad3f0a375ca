-- One resource counter of the counter protocol. KEYS[1]: its hash (fields consumption, max, updated in epoch
-- seconds, and 'o' .. owner: what that owner holds); KEYS[2]: its leases, a sorted set of owner -> deadline in
-- epoch milliseconds (same hash tag). ARGV: operation (acquire release releaseall read renew), owner, resources,
-- maximum, lease in milliseconds, statistics interval in seconds.
-- Time is the server's, so the gateways' clocks do not matter. Before anything else, owners whose lease passed
-- (their gateway died without releasing) give back what they hold.
local time = redis.call('TIME')
local now_s = tonumber(time[1])
local now_ms = now_s * 1000 + math.floor(tonumber(time[2]) / 1000)
local op, owner, resources = ARGV[1], 'o' .. ARGV[2], tonumber(ARGV[3])
local interval = tonumber(ARGV[6])
local boundary = math.floor(now_s / interval) * interval

-- A counter at 0 is dropped at the end of the interval it last changed in, as the memory store's collection does.
local function settle(consumption)
  if consumption == 0 then
    redis.call('EXPIREAT', KEYS[1], boundary + interval)
    redis.call('EXPIREAT', KEYS[2], boundary + interval)
  else
    redis.call('PERSIST', KEYS[1])
    redis.call('PERSIST', KEYS[2])
  end
end

local function lower(amount)
  local state = redis.call('HMGET', KEYS[1], 'consumption', 'updated')
  local consumption = tonumber(state[1])
  if tonumber(state[2]) < boundary then
    redis.call('HSET', KEYS[1], 'max', consumption)
  end
  consumption = math.max(0, consumption - amount)
  redis.call('HSET', KEYS[1], 'consumption', consumption, 'updated', now_s)
  settle(consumption)
end

local function give_back(field, lessee)
  local held = tonumber(redis.call('HGET', KEYS[1], field) or '0')
  if held > 0 then
    lower(held)
  end
  redis.call('HDEL', KEYS[1], field)
  redis.call('ZREM', KEYS[2], lessee)
end

local exists = redis.call('EXISTS', KEYS[1]) == 1
if exists then
  for _, lapsed in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now_ms)) do
    give_back('o' .. lapsed, lapsed)
  end
end

if op == 'acquire' then
  local created = 0
  if not exists then
    redis.call('HSET', KEYS[1], 'consumption', resources, 'max', resources, 'updated', now_s)
    created = 1
  else
    local state = redis.call('HMGET', KEYS[1], 'consumption', 'max', 'updated')
    local after = tonumber(state[1]) + resources
    if after > tonumber(ARGV[4]) then
      return {'LIMIT_REACHED'}
    end
    local max = after
    if tonumber(state[3]) >= boundary then
      max = math.max(tonumber(state[2]), after)
    end
    redis.call('HSET', KEYS[1], 'consumption', after, 'max', max, 'updated', now_s)
  end
  redis.call('HINCRBY', KEYS[1], owner, resources)
  redis.call('ZADD', KEYS[2], now_ms + tonumber(ARGV[5]), ARGV[2])
  settle(tonumber(redis.call('HGET', KEYS[1], 'consumption')))
  return {'OK', created}
elseif op == 'release' then
  if not exists then
    return {'NOT_FOUND'}
  end
  local held = redis.call('HGET', KEYS[1], owner)
  if not held or tonumber(held) < resources then
    return {'NOT_HELD'}
  end
  lower(resources)
  if tonumber(held) == resources then
    -- Holding none: the owner is forgotten, lease and all, as the reference server erases the entry (a release of
    -- 0 is then NOT_HELD).
    redis.call('HDEL', KEYS[1], owner)
    redis.call('ZREM', KEYS[2], ARGV[2])
  elseif resources > 0 then
    -- (never by -0: Redis refuses '-0' as an integer)
    redis.call('HINCRBY', KEYS[1], owner, -resources)
  end
  return {'OK'}
elseif op == 'releaseall' then
  if exists then
    give_back(owner, ARGV[2])
  end
  return {'OK'}
elseif op == 'renew' then
  -- Answers whether the owner still has a lease on the counter (it holds some of it).
  if exists and redis.call('ZSCORE', KEYS[2], ARGV[2]) then
    redis.call('ZADD', KEYS[2], 'XX', now_ms + tonumber(ARGV[5]), ARGV[2])
    return {'OK', 1}
  end
  return {'OK', 0}
end
-- read
if redis.call('EXISTS', KEYS[1]) == 0 then
  return {'NOT_FOUND'}
end
local state = redis.call('HMGET', KEYS[1], 'consumption', 'max', 'updated')
local max = tonumber(state[2])
if tonumber(state[3]) < boundary then
  max = tonumber(state[1])
end
return {'OK', tonumber(state[1]), max}
