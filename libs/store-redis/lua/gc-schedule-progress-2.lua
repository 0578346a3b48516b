--[[
  GC step 4 for one dispatch: progress and its completed-index row get the fixed deadline as their
  logical expiry (only when they have none: never renewed) and a one-time physical expiry.

  Input:
    KEYS[1] progress hash          {ms:<shard>}:dispatch:<d>
    KEYS[2] completed-index row    {ms:<shard>}:done:<d>

    ARGV[1] now           caller clock, 16-hex ms
    ARGV[2] deadline      16 hex
    ARGV[3] deadline ms   decimal
    ARGV[4] grace         physical clean-up grace, decimal ms

  Output:
    {0, worked}   worked = 1 when either row was scheduled now
]]
--- @include "result-codes"
--- @include "dispatch-facts"
--- @include "physical-expiry"

local now, worked = ARGV[1], 0
for i = 1, 2 do
  if liveHash(KEYS[i], now) and redis.call('HSETNX', KEYS[i], '~exp', ARGV[2]) == 1 then
    expireOnce(KEYS[i], ARGV[3], ARGV[4])
    worked = 1
  end
end
return { R_OK, worked }
