-- ARGV: key, now, new expiry. Value, flags and CAS stay. Returns {status} or {'OK', touched raw item}.
local item = read()
if item == nil then
  return {'NOT_FOUND'}
end
return {'OK', write(item.value, item.flags, item.cas, tonumber(ARGV[3]))}
