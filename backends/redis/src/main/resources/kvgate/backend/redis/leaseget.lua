-- ARGV: key, now, new expiry ('' for no touch), expiry of an item created on a miss ('' for none), how near its
-- expiry an item must be for this get to win its lease, in milliseconds ('' for no early win), the created item's
-- chosen CAS (8 bytes, '' for none). As
-- kvgate.spi.ItemTransition decides a LeaseGet. Returns {status} or {'OK', raw item, lease, 1 if won here else 0}.
local item = read()
if item == nil then
  if ARGV[4] == '' then
    return {'NOT_FOUND'}
  end
  -- memcached's placeholder: empty, flags 0, its lease handed to the get that made it.
  return {'OK', write('', 0, next_cas(nil, ARGV[6]), tonumber(ARGV[4]), 1), 1, 1}
end
local leased = lease()
local handed, stale = leased % 2 == 1, leased >= 2
-- Time left in whole seconds, a second begun counting as one, as memcached counts it.
local won = not handed and (stale or (ARGV[5] ~= '' and item.expires ~= 0
  and math.ceil((item.expires - NOW) / 1000) * 1000 < tonumber(ARGV[5])))
local expires = item.expires
if ARGV[3] ~= '' then
  expires = tonumber(ARGV[3])
end
if not won and expires == item.expires then
  return {'OK', item.raw, leased, 0}
end
if won then
  leased = leased + 1
end
return {'OK', write(item.value, item.flags, item.cas_raw, expires, leased), leased, won and 1 or 0}
