-- ARGV: key, now, new expiry. Value, flags, CAS and lease stay. Returns {status} or {'OK', touched raw item, lease}.
local item = read()
if item == nil then
  return {'NOT_FOUND'}
end
local leased = lease()
return {'OK', write(item.value, item.flags, item.cas_raw, tonumber(ARGV[3]), leased), leased}
