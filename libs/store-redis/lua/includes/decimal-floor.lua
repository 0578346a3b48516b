--[[
  Decimal u64 floors (the writer-id HLC floor is stored as a decimal string, as every build wrote
  it). Lua numbers are doubles, so two decimals compare by length, then bytewise.
]]
-- Raises the decimal value at `key` to `value` unless it is already there or beyond.
local function raiseDecimalFloor(key, value)
  local cur = redis.call('GET', key)
  if (not cur) or (#cur < #value) or (#cur == #value and cur < value) then
    redis.call('SET', key, value)
  end
end
