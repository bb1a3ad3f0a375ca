-- KEYS[1]: a namespace's counter directory, a sorted set of names scored by how many grants listed them;
-- ARGV: a name a dump found gone, the score the dump read. Drops the name only if no grant listed it since: a
-- counter created again meanwhile by any gateway raised the score, and stays listed.
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if score and tonumber(score) == tonumber(ARGV[2]) then
  redis.call('ZREM', KEYS[1], ARGV[1])
  return 1
end
return 0
