--[[
  u64 values (seqs, offsets, ms timestamps) are stored and passed as exactly 16 lowercase hex
  digits. Lua numbers are doubles (exact only below 2^53) and string `<` follows the server's
  collation locale, so comparisons go through two exact 32-bit halves instead.
]]
local HEX_ZERO = '0000000000000000'

-- -1, 0 or 1 as a < b, a == b, a > b (both 16-hex strings).
local function hexCmp(a, b)
  if a == b then return 0 end
  local ah, bh = tonumber(string.sub(a, 1, 8), 16), tonumber(string.sub(b, 1, 8), 16)
  if ah ~= bh then return ah < bh and -1 or 1 end
  local al, bl = tonumber(string.sub(a, 9, 16), 16), tonumber(string.sub(b, 9, 16), 16)
  return al < bl and -1 or 1
end

local function hexMax(a, b)
  return hexCmp(a, b) >= 0 and a or b
end

local function hexMin(a, b)
  return hexCmp(a, b) <= 0 and a or b
end

-- a + 1 (a < 2^64 - 1).
local function hexInc(a)
  local hi, lo = tonumber(string.sub(a, 1, 8), 16), tonumber(string.sub(a, 9, 16), 16) + 1
  if lo == 4294967296 then
    lo = 0
    hi = hi + 1
  end
  return string.format('%08x%08x', hi, lo)
end
