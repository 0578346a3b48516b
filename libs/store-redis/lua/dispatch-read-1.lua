--[[
  Reads a dispatch's live progress and its chunk completion facts (for dispatchProgress and the
  receipt/manifest checks of appendChunk).

  Input:
    KEYS[1] progress hash   {ms:<shard>}:dispatch:<d>

    ARGV[1] now            caller clock, 16-hex ms
    ARGV[2] dispatch id    32 hex
    ARGV[3] shard prefix   "<ns>:{ms:<shard>}:"

  Output:
    {0, digest, manifest, coff, mseq, maxobs, seen, done|'', gcdl|'', gcph|'', '<lane>:<chunk>', ...}
    {-1}   unknown (absent or expired)
    {-5}   GC marker present
]]
--- @include "result-codes"
--- @include "dispatch-facts"

local now, d, prefix = ARGV[1], ARGV[2], ARGV[3]
local pk = KEYS[1]
if not liveHash(pk, now) then return { E_NOT_FOUND } end
local p = redis.call('HMGET', pk, 'digest', 'manifest', 'coff', 'mseq', 'maxobs', 'seen', 'done', 'gcdl', 'gcph')
if p[8] then return { E_GC_NOT_SAFE } end
local out = { R_OK, p[1], p[2], p[3], p[4], p[5], p[6], p[7] or '', p[8] or '', p[9] or '' }
local ck = prefix .. 'chunks:' .. d
if liveHash(ck, now) then
  for _, f in ipairs(factFields(ck)) do out[#out + 1] = f end
end
return out
