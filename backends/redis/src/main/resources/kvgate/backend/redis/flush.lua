-- One chunk of one index shard of a namespace. KEYS[1]: the shard; ARGV: the item key prefix of the shard, the
-- chunk size, the lease key prefix of the shard. Unlinks the items (and their leases) of the first members (keys
-- built here share the shard's hash tag, so they are in its slot) and drops those members; returns how many
-- members are left, for the caller to go on.
local members = redis.call('ZRANGE', KEYS[1], 0, tonumber(ARGV[2]) - 1)
for _, member in ipairs(members) do
  redis.call('UNLINK', ARGV[1] .. member, ARGV[3] .. member)
end
if #members > 0 then
  redis.call('ZREM', KEYS[1], unpack(members))
end
return redis.call('ZCARD', KEYS[1])
