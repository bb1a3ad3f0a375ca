-- KEYS: the posting sets of every gram of one value (one index group, so one hash slot); ARGV[1]: the key.
for _, posting in ipairs(KEYS) do
  redis.call('SADD', posting, ARGV[1])
end
return 0
