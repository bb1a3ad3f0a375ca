-- ARGV: key, now, 'incr' or 'decr', delta as two 32-bit halves (high, low), initial (decimal), 'create' or '',
-- expiry of a created item, wanted CAS ('' for none), new expiry of an existing item ('' to keep its own), chosen
-- CAS (8 bytes, '' for none).
-- Returns {status} or {'OK', new value (decimal), cas, expiry}.
-- Lua's numbers are doubles, so unsigned 64-bit numbers are kept as two 32-bit halves.
local WORD = 4294967296
local SPACE = '[ \t\n\v\f\r]'

-- memcached's strtoull: white space, an optional '+', digits, then the end or white space.
local function parse(text)
  local digits, after = string.match(text, '^' .. SPACE .. '*%+?(%d+)()')
  if not digits or (after <= #text and not string.find(string.sub(text, after, after), SPACE)) then
    return nil
  end
  local high, low = 0, 0
  for i = 1, #digits do
    low = low * 10 + string.byte(digits, i) - 48
    high = high * 10 + math.floor(low / WORD)
    low = low % WORD
    if high >= WORD then
      return nil
    end
  end
  return high, low
end

local function format(high, low)
  if high == 0 and low == 0 then
    return '0'
  end
  local digits = {}
  while high > 0 or low > 0 do
    local rest = (high % 10) * WORD + low
    high = math.floor(high / 10)
    low = math.floor(rest / 10)
    table.insert(digits, 1, string.char(48 + rest % 10))
  end
  return table.concat(digits)
end

local increment, delta_high, delta_low = ARGV[3] == 'incr', tonumber(ARGV[4]), tonumber(ARGV[5])
local item = read()
if item == nil then
  if ARGV[7] ~= 'create' then
    return {'NOT_FOUND'}
  end
  -- A CAS does not stop the creation: there is nothing to compare with, and memcached creates too.
  local cas = next_cas(nil, ARGV[11])
  write(ARGV[6], 0, cas, tonumber(ARGV[8]))
  return {'OK', ARGV[6], cas, tonumber(ARGV[8])}
end
if cas_differs(item, ARGV[9]) then
  return {'EXISTS'}
end
local high, low = parse(item.value)
if not high then
  return {'NON_NUMERIC'}
end
if increment then
  low = low + delta_low
  high = (high + delta_high + math.floor(low / WORD)) % WORD
  low = low % WORD
elseif high < delta_high or (high == delta_high and low < delta_low) then
  high, low = 0, 0
else
  low = low - delta_low
  high = high - delta_high
  if low < 0 then
    low = low + WORD
    high = high - 1
  end
end
local value = format(high, low)
local cas = next_cas(item, ARGV[11])
-- As memcached, a number no longer than the value it replaces takes its place, padded with spaces to its length,
-- keeping the item's lease; a longer one is a new item.
local stored, leased = value, 0
if #value <= #item.value then
  stored = value .. string.rep(' ', #item.value - #value)
  leased = lease()
end
local expires = item.expires
if ARGV[10] ~= '' then
  expires = tonumber(ARGV[10])
end
write(stored, item.flags, cas, expires, leased)
return {'OK', value, cas, expires}
