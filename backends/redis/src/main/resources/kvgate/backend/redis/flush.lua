-- One index shard of a namespace. KEYS[1]: the shard; ARGV[1]: the item key prefix of the shard. Removes every
-- item the shard lists (keys built here share the shard's hash tag, so they are in its slot), then the shard.
for _, member in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  redis.call('DEL', ARGV[1] .. member)
end
redis.call('DEL', KEYS[1])
return 0
