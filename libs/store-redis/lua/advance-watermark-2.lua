--[[
  Moves a lane's W from exactly the expected previous value to `offset`, atomically with the facts
  it depends on. Decision (the same as store-core `decideAdvance`, which the wrapper re-runs on the
  returned facts to raise the identical error):
    - the live source at offset belongs to a dispatch with a GC marker → GC_NOT_SAFE;
    - W already ≥ offset → no-op (idempotent repeat);
    - W ≠ expected → WATERMARK_CONFLICT;
    - offset is not the next recorded source (W + 1, or from null the lowest live source above the
      floor), is not recorded (a hole), or the lane's chunks there are incomplete → WATERMARK_STALLED;
    - else W := offset.

  Input:
    KEYS[1] watermarks hash    {ms:<shard>}:watermarks
    KEYS[2] source index zset  {ms:<shard>}:sources

    ARGV[1] now            caller clock, 16-hex ms
    ARGV[2] lane           0…63
    ARGV[3] expected       16 hex, or '' for null
    ARGV[4] offset         16 hex
    ARGV[5] shard prefix   "<ns>:{ms:<shard>}:"

  Output:
    {code, W before|'', floor|'', lowest|'', recorded (1|0), complete (1|0)}
      code: 0 advanced, 1 no-op, -11 conflict, -12 stalled, -5 GC marker
]]
--- @include "result-codes"
--- @include "dispatch-facts"

local now, lane, expected, off, prefix = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]
local d = sourceDispatch(prefix, off, lane, now)
if d then
  local pk = prefix .. 'dispatch:' .. d
  if liveHash(pk, now) and redis.call('HGET', pk, 'gcdl') then return { E_GC_NOT_SAFE, '', '', '', 0, 0 } end
end
local w = redis.call('HGET', KEYS[1], 'w:' .. lane)
local f = redis.call('HGET', KEYS[1], 'f:' .. lane)
local lowest = nil
if not w then
  for _, o in ipairs(redis.call('ZRANGEBYLEX', KEYS[2], f and '(' .. f or '-', '+')) do
    if sourceDispatch(prefix, o, lane, now) then
      lowest = o
      break
    end
  end
end
local recorded = d ~= nil
local complete = recorded and sourceComplete(prefix, d, lane, now)
local function reply(code)
  return { code, w or '', f or '', lowest or '', recorded and 1 or 0, complete and 1 or 0 }
end

if w and hexCmp(w, off) >= 0 then return reply(R_ALREADY) end
if (w or '') ~= expected then return reply(E_WATERMARK_CONFLICT) end
local nextOff = w and hexInc(w) or lowest
if not nextOff or nextOff ~= off or not recorded or not complete then return reply(E_WATERMARK_STALLED) end
redis.call('HSET', KEYS[1], 'w:' .. lane, off)
return reply(R_OK)
