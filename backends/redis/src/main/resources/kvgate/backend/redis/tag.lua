-- KEYS[1]: a tag's sorted set; ARGV[1]: a key. A key already listed keeps its place; a new one goes last (its
-- score one above the last), so the set lists keys in the order they were first tagged.
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then
  return 0
end
local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
local score = 1
if last[2] then
  score = tonumber(last[2]) + 1
end
redis.call('ZADD', KEYS[1], score, ARGV[1])
return 1
