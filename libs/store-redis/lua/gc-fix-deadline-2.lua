--[[
  GC step 1 for one completed dispatch: fixes its ONE deadline, never renewing it.
    - deadline copies on progress and on the completed-index row that disagree → CORRUPT;
    - no copy yet: progress must be live (else CORRUPT: neither progress nor marker), and the gate
      (store-core `gcEligible`) must hold atomically: completed, last seen ≤ cutoff, and every one
      of the 64 lanes has W and floor ≥ max observed offset — otherwise skip. Then the deadline
      (now + delay, computed by the caller) is written on progress and indexed for the sweep;
    - the completed-index row gets the same value as its mirror when it has none.

  Input:
    KEYS[1] watermarks hash   {ms:<shard>}:watermarks
    KEYS[2] deadlines zset    {ms:<shard>}:deadlines   member d, score deadline ms

    ARGV[1] now             caller clock, 16-hex ms
    ARGV[2] cutoff          16-hex ms (last seen must be ≤ it)
    ARGV[3] dispatch id     32 hex
    ARGV[4] deadline        16 hex (used only when none is fixed yet)
    ARGV[5] deadline score  decimal ms
    ARGV[6] shard prefix    "<ns>:{ms:<shard>}:"

  Output:
    {0, 1, worked, deadline}   marker present (fixed now or before); worked = 1 when anything was written
    {0, 0, 0, ''}              not eligible: skipped, nothing written
    {-7}                       copies disagree, or a completed-index row without progress or marker
]]
--- @include "result-codes"
--- @include "dispatch-facts"

local now, d, prefix = ARGV[1], ARGV[3], ARGV[6]
local pk, ik = prefix .. 'dispatch:' .. d, prefix .. 'done:' .. d
local pLive, iLive = liveHash(pk, now), liveHash(ik, now)
local pd = pLive and redis.call('HGET', pk, 'gcdl') or nil
local id = iLive and redis.call('HGET', ik, 'gcdl') or nil
if pd and id and pd ~= id then return { E_CORRUPT } end
local deadline = pd or id
local worked = 0
if not deadline then
  if not pLive then return { E_CORRUPT } end
  local p = redis.call('HMGET', pk, 'done', 'seen', 'maxobs')
  if not p[1] or hexCmp(p[2], ARGV[2]) > 0 then return { R_OK, 0, 0, '' } end
  for lane = 0, 63 do
    local w = redis.call('HGET', KEYS[1], 'w:' .. lane)
    local f = redis.call('HGET', KEYS[1], 'f:' .. lane)
    if not w or not f or hexCmp(w, p[3]) < 0 or hexCmp(f, p[3]) < 0 then return { R_OK, 0, 0, '' } end
  end
  deadline = ARGV[4]
  redis.call('HSET', pk, 'gcdl', deadline)
  redis.call('ZADD', KEYS[2], ARGV[5], d)
  worked = 1
end
if iLive and not id then
  redis.call('HSET', ik, 'gcdl', deadline)
  worked = 1
end
return { R_OK, 1, worked, deadline }
