--[[
  Summary of one conversation for a viewer: the head (newest live index row) with its record,
  and the unread count over at most `window` live index rows after readSeq: rows whose sender is
  not the viewer and which are countable (kind normal|edited, not control). More than `window`
  live rows after readSeq → unread = window, precise = 0.

  Input:
    KEYS[1] history index zset  {cv:<tenant><conv>}:index

    ARGV[1] now             caller clock, 16-hex ms
    ARGV[2] read seq        16-hex seq (0 = nothing read)
    ARGV[3] window          UNREAD_PRECISE_LIMIT (100)
    ARGV[4] viewer          32-hex user id
    ARGV[5] record prefix   "<ns>:{cv:<tenant><conv>}:rec:"

  Output:
    {0, head, record, unread, precise}
      head = 16-hex seq or '' when no live row; record = bytes, or nil when none/missing
]]
--- @include "result-codes"
--- @include "history-index"

local now, window = ARGV[1], tonumber(ARGV[3])
local head, record = '', false
local offset = 0
while head == '' do
  local rows = redis.call('ZREVRANGEBYLEX', KEYS[1], '+', '-', 'LIMIT', offset, 32)
  for _, member in ipairs(rows) do
    if rowLive(member, now) then
      head = rowSeq(member)
      record = redis.call('GET', ARGV[5] .. head)
      break
    end
  end
  if #rows < 32 then break end
  offset = offset + #rows
end

local unread, rows, precise = 0, 0, 1
offset = 0
while precise == 1 do
  local page = redis.call('ZRANGEBYLEX', KEYS[1], '(' .. ARGV[2] .. '~', '+', 'LIMIT', offset, 128)
  for _, member in ipairs(page) do
    if rowLive(member, now) then
      if rows >= window then
        precise = 0
        unread = window
        break
      end
      rows = rows + 1
      if rowCountable(member) and rowSender(member) ~= ARGV[4] then unread = unread + 1 end
    end
  end
  if #page < 128 then break end
  offset = offset + #page
end
return { R_OK, head, record, unread, precise }
