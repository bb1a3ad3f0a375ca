-- One index shard of a namespace. KEYS[1]: the shard; ARGV: the item key prefix of the shard, the gateway's time
-- in epoch milliseconds, the most items wanted. Returns key, raw item, key, raw item... of the items that expire
-- after that time, reading at most that many members: one call's work is bounded by the scan's limit.
-- The item keys are built here rather than passed: they share the shard's hash tag, so they are in its slot.
local found = {}
for _, member in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. ARGV[2], '+inf', 'LIMIT', 0, tonumber(ARGV[3]))) do
  local raw = redis.call('GET', ARGV[1] .. member)
  if raw then
    table.insert(found, member)
    table.insert(found, raw)
  end
end
return found
