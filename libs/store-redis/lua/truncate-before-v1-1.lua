--[[
  Monotonic raise of a user's trim: writes `seq` only when no trim exists or seq > trim.

  Input:
    KEYS[1] trim   {mb:<bucket>}:u2:<tenant><user>:trim   (16-hex seq)

    ARGV[1] seq    16-hex mailbox seq

  Output:
    {0}   raised
    {1}   unchanged (seq ≤ trim)
]]
--- @include "result-codes"
--- @include "hex-u64"

local cur = redis.call('GET', KEYS[1])
if cur and hexCmp(ARGV[1], cur) <= 0 then return { R_ALREADY } end
redis.call('SET', KEYS[1], ARGV[1])
return { R_OK }
