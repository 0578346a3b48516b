--[[
  One directional history page. Walks the index from the exclusive anchor, skipping rows whose
  ephemeral expiry ≤ now, and reads each record: the first row is always taken, later rows only
  while the item count < max items and the running byte total (record lengths) stays ≤ max bytes.
  Then looks for one more live row to answer `more`. A missing record is returned as nil (the
  wrapper reports it as corruption; a row that expired is never returned at all).

  Input:
    KEYS[1] history index zset  {cv:<tenant><conv>}:index

    ARGV[1] direction       'older' (descending seq) | 'newer' (ascending)
    ARGV[2] anchor          16-hex seq (exclusive) or '' = from the newest / oldest end
    ARGV[3] max items       1 … 1000
    ARGV[4] max bytes       ≥ 1
    ARGV[5] now             caller clock, 16-hex ms
    ARGV[6] record prefix   "<ns>:{cv:<tenant><conv>}:rec:" (same hash tag as KEYS[1])

  Output:
    {0, more, seq1, record1, seq2, record2, ...}   records are bytes or nil (missing)
]]
--- @include "result-codes"
--- @include "history-index"

local older = ARGV[1] == 'older'
local anchor = ARGV[2]
local maxItems, maxBytes = tonumber(ARGV[3]), tonumber(ARGV[4])
local lo, hi
if older then
  hi = anchor == '' and '+' or '(' .. anchor
  lo = '-'
else
  lo = anchor == '' and '-' or '(' .. anchor .. '~'
  hi = '+'
end

local out = { R_OK, 0 }
local taken, bytes, offset, page = 0, 0, 0, 64
while true do
  local rows
  if older then
    rows = redis.call('ZREVRANGEBYLEX', KEYS[1], hi, lo, 'LIMIT', offset, page)
  else
    rows = redis.call('ZRANGEBYLEX', KEYS[1], lo, hi, 'LIMIT', offset, page)
  end
  for _, member in ipairs(rows) do
    if rowLive(member, ARGV[5]) then
      if taken >= maxItems then
        out[2] = 1
        return out
      end
      local seq = rowSeq(member)
      local record = redis.call('GET', ARGV[6] .. seq)
      local size = record and #record or 0
      if taken > 0 and bytes + size > maxBytes then
        out[2] = 1
        return out
      end
      taken = taken + 1
      bytes = bytes + size
      out[#out + 1] = seq
      out[#out + 1] = record
    end
  end
  if #rows < page then break end
  offset = offset + #rows
end
return out
