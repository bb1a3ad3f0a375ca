-- ARGV: key, now, wanted CAS ('' for none). Returns {status} or {'OK', removed raw item}.
local item = read()
local no = refused(item, ARGV[3])
if no then
  return no
end
remove()
return {'OK', item.raw}
