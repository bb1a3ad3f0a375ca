-- ARGV: key, now, wanted CAS ('' for none), new expiry ('' to keep the item's). Marks the item stale, its lease free
-- again, with a new CAS (memcached's md with I). Returns {status} or {'OK', cas}.
local item = read()
if item == nil then
  return {'NOT_FOUND'}
end
if cas_differs(item, ARGV[3]) then
  return {'EXISTS'}
end
local expires = item.expires
if ARGV[4] ~= '' then
  expires = tonumber(ARGV[4])
end
local cas = next_cas(item)
write(item.value, item.flags, cas, expires, 2)
return {'OK', cas}
