-- ARGV: key, now, wanted CAS ('' for none). Returns {status} or {'OK', removed raw item}.
local item = read()
if item == nil then
  return {'NOT_FOUND'}
end
if cas_differs(item, ARGV[3]) then
  return {'EXISTS'}
end
remove()
return {'OK', item.raw}
