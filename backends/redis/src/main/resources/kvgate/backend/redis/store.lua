-- ARGV: key, now, mode (set add replace append prepend), value, flags, expiry, wanted CAS ('' for none), size limit,
-- 'keep' to keep the expiry of an item already there ('' to give it this one), 'stale' when an older wanted CAS
-- stores the value as stale (set or replace; '' otherwise), the chosen CAS (8 bytes, '' for none). Returns {status}
-- or {'OK', cas}.
local mode, value, flags, expires, wanted = ARGV[3], ARGV[4], tonumber(ARGV[5]), tonumber(ARGV[6]), ARGV[7]
local item = read()
local leased = 0
local joining = mode == 'append' or mode == 'prepend'
if item == nil then
  if joining then
    return {'NOT_STORED'}
  end
  if mode == 'replace' or wanted ~= '' then
    return {'NOT_FOUND'}
  end
else
  if mode == 'add' then
    return {'EXISTS'}
  end
  if cas_differs(item, wanted) then
    -- A late writer's value (memcached's ms with I): an older CAS stores it all the same, stale, with the item's
    -- expiry and whether its lease was handed out.
    if ARGV[10] ~= 'stale' or (mode ~= 'set' and mode ~= 'replace') or not cas_below(wanted, item.cas_raw) then
      return {'EXISTS'}
    end
    leased = 2 + lease() % 2
    expires = item.expires
  end
end
if joining then
  if #item.value + #value > tonumber(ARGV[8]) then
    return {'TOO_LARGE'}
  end
  if mode == 'append' then
    value = item.value .. value
  else
    value = value .. item.value
  end
  flags, expires = item.flags, item.expires
elseif #value > tonumber(ARGV[8]) then
  return {'TOO_LARGE'}
elseif item ~= nil and ARGV[9] == 'keep' then
  expires = item.expires
end
local cas = next_cas(item, ARGV[11])
write(value, flags, cas, expires, leased)
return {'OK', cas}
