--[[
  GC steps 2–3 for one dispatch with a fixed deadline: phase null → 1, then every child fact —
  the lane source rows at every observed offset, the chunk completion facts and the observation
  index — gets the deadline as its logical expiry ('~exp', set only when absent: never renewed;
  facts already gone are tolerated) and a one-time physical expiry; then phase 1 → 2.

  Input:
    KEYS[1] progress hash   {ms:<shard>}:dispatch:<d>

    ARGV[1] now            caller clock, 16-hex ms
    ARGV[2] dispatch id    32 hex
    ARGV[3] deadline       16 hex (the fixed one)
    ARGV[4] deadline ms    decimal
    ARGV[5] shard prefix   "<ns>:{ms:<shard>}:"
    ARGV[6] grace          physical clean-up grace, decimal ms

  Output:
    {0, worked}   worked = 1 when the phases ran now; 0 when progress is gone or already phase 2
]]
--- @include "result-codes"
--- @include "dispatch-facts"
--- @include "physical-expiry"

local now, d, deadline, deadlineMs, prefix, grace = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6]
local pk = KEYS[1]
if not liveHash(pk, now) then return { R_OK, 0 } end
local phase = redis.call('HGET', pk, 'gcph')
if phase == '2' then return { R_OK, 0 } end
if not phase then redis.call('HSET', pk, 'gcph', '1') end

local function schedule(key)
  if liveHash(key, now) then
    redis.call('HSETNX', key, '~exp', deadline)
    expireOnce(key, deadlineMs, grace)
  end
end

local obsKey = prefix .. 'obs:' .. d
local offsets = liveHash(obsKey, now) and factFields(obsKey) or {}
for _, off in ipairs(offsets) do
  local srcKey = prefix .. 'src:' .. off
  if sourceDispatch(prefix, off, 0, now) == d then schedule(srcKey) end
end
schedule(prefix .. 'chunks:' .. d)
schedule(obsKey)
redis.call('HSET', pk, 'gcph', '2')
return { R_OK, 1 }
