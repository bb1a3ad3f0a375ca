-- ARGV: key, now, wanted CAS ('' for none), new expiry ('' to keep the item's), chosen CAS (8 bytes, '' for none).
-- Marks the item stale, its lease free again, with a new CAS (memcached's md with I). Returns {status} or
-- {'OK', cas}.
local item = read()
local no = refused(item, ARGV[3])
if no then
  return no
end
local expires = item.expires
if ARGV[4] ~= '' then
  expires = tonumber(ARGV[4])
end
local cas = next_cas(item, ARGV[5])
write(item.value, item.flags, cas, expires, 2)
return {'OK', cas}
