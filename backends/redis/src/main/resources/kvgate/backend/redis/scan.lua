-- One index shard of a namespace. KEYS[1]: the shard; ARGV: the item key prefix of the shard, the most items
-- wanted. Returns key, raw item, key, raw item...; members whose item expired are dropped from the shard.
-- The item keys are built here rather than passed: they share the shard's hash tag, so they are in its slot.
local found = {}
for _, member in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  local raw = redis.call('GET', ARGV[1] .. member)
  if raw then
    if #found >= 2 * tonumber(ARGV[2]) then
      break
    end
    table.insert(found, member)
    table.insert(found, raw)
  else
    redis.call('SREM', KEYS[1], member)
  end
end
return found
