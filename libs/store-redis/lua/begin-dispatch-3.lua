--[[
  Records one observation of a dispatch record at a source offset, atomically:
    1. live progress with a GC marker → GC_NOT_SAFE; with another digest or manifest → conflict;
    2. a live source row at this offset owned by another dispatch → conflict;
    3. first sight (no live progress): progress created with the canonical offset and mailbox seq
       of THIS offset, declared chunk counts per lane; a manifest without chunks is complete at
       once (completed index row). Later sight: max observed offset raised, last seen refreshed
       (both monotonic), the completed-index mirror of max observed kept equal;
    4. the observation index row (first recording kept), then a source row in all 64 lanes.

  Input:
    KEYS[1] progress hash      {ms:<shard>}:dispatch:<d>
    KEYS[2] source index zset  {ms:<shard>}:sources    (lex members: offset 16 hex)
    KEYS[3] completed index    {ms:<shard>}:completed  (member d, score completed-at ms)

    ARGV[1]  now            caller clock, 16-hex ms
    ARGV[2]  offset         observed source offset, 16 hex
    ARGV[3]  dispatch id    32 hex
    ARGV[4]  digest         32 bytes (manifest digest)
    ARGV[5]  manifest       DispatchManifest codec bytes
    ARGV[6]  mailbox seq    16 hex: composeMailboxSeq(epoch, offset)
    ARGV[7]  declared       "lane:count,..." for the lanes with chunks ('' = none)
    ARGV[8]  chunk total    decimal
    ARGV[9]  shard prefix   "<ns>:{ms:<shard>}:"
    ARGV[10] now score      decimal ms

  Output:
    {0, canonical offset, mailbox seq, digest}   the receipt (the first sight's)
    {-4}                                         dispatch conflict
    {-5}                                         GC marker present
]]
--- @include "result-codes"
--- @include "dispatch-facts"

local now, off, d, prefix = ARGV[1], ARGV[2], ARGV[3], ARGV[9]
local pk = KEYS[1]
local live = liveHash(pk, now)
if live then
  if redis.call('HGET', pk, 'gcdl') then return { E_GC_NOT_SAFE } end
  local cur = redis.call('HMGET', pk, 'digest', 'manifest')
  if cur[1] ~= ARGV[4] or cur[2] ~= ARGV[5] then return { E_DISPATCH_CONFLICT } end
end
local srcKey = prefix .. 'src:' .. off
local srcLive = liveHash(srcKey, now)
if srcLive then
  local owners = redis.call('HGETALL', srcKey)
  for i = 1, #owners, 2 do
    if owners[i] ~= '~exp' and owners[i + 1] ~= d then return { E_DISPATCH_CONFLICT } end
  end
end

local doneKey = prefix .. 'done:' .. d
if not live then
  redis.call('DEL', pk, prefix .. 'chunks:' .. d, prefix .. 'obs:' .. d, doneKey)
  redis.call('HSET', pk, 'digest', ARGV[4], 'manifest', ARGV[5], 'coff', off, 'mseq', ARGV[6], 'maxobs', off,
    'seen', now, 'pending', ARGV[8], 'decl', ARGV[7])
  for lane, count in string.gmatch(ARGV[7], '(%d+):(%d+)') do redis.call('HSET', pk, 'n:' .. lane, count) end
  if tonumber(ARGV[8]) == 0 then
    redis.call('HSET', pk, 'done', now)
    redis.call('ZADD', KEYS[3], ARGV[10], d)
    redis.call('HSET', doneKey, 'at', now, 'maxobs', off)
  end
else
  local cur = redis.call('HMGET', pk, 'maxobs', 'seen', 'done')
  local maxobs = hexMax(cur[1], off)
  redis.call('HSET', pk, 'maxobs', maxobs, 'seen', hexMax(cur[2], now))
  if cur[3] and liveHash(doneKey, now) then redis.call('HSET', doneKey, 'maxobs', maxobs) end
end

redis.call('HSETNX', prefix .. 'obs:' .. d, off, now)
if not srcLive then
  redis.call('DEL', srcKey)
  local rows = {}
  for lane = 0, 63 do
    rows[#rows + 1] = tostring(lane)
    rows[#rows + 1] = d
  end
  redis.call('HSET', srcKey, unpack(rows))
  redis.call('ZADD', KEYS[2], 0, off)
end
local receipt = redis.call('HMGET', pk, 'coff', 'mseq', 'digest')
return { R_OK, receipt[1], receipt[2], receipt[3] }
