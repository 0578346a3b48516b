--[[
  Writes the durable completion fact of one declared chunk (idempotent). When no declared chunk is
  pending any more (a counter hint) and every lane's facts are really there, sets completed-at and
  adds the completed-index row.

  Input:
    KEYS[1] progress hash     {ms:<shard>}:dispatch:<d>
    KEYS[2] completed index   {ms:<shard>}:completed

    ARGV[1] now            caller clock, 16-hex ms
    ARGV[2] now score      decimal ms
    ARGV[3] dispatch id    32 hex
    ARGV[4] receipt coff   16 hex    ┐
    ARGV[5] receipt mseq   16 hex    ├ must equal the stored receipt
    ARGV[6] receipt digest 32 bytes  ┘
    ARGV[7] lane           0…63
    ARGV[8] chunk id       decimal (as given; checked against the declared count here)
    ARGV[9] shard prefix   "<ns>:{ms:<shard>}:"

  Output:
    {0}    fact written now
    {1}    fact already present
    {-1}   unknown dispatch      {-2}  receipt differs from the stored one
    {-5}   GC marker present     {-10} chunk not declared for this lane
]]
--- @include "result-codes"
--- @include "dispatch-facts"

local now, d, lane, prefix = ARGV[1], ARGV[3], ARGV[7], ARGV[9]
local pk = KEYS[1]
if not liveHash(pk, now) then return { E_NOT_FOUND } end
local p = redis.call('HMGET', pk, 'gcdl', 'coff', 'mseq', 'digest', 'n:' .. lane, 'maxobs')
if p[1] then return { E_GC_NOT_SAFE } end
if p[2] ~= ARGV[4] or p[3] ~= ARGV[5] or p[4] ~= ARGV[6] then return { E_CONFLICT } end
local chunk = tonumber(ARGV[8])
if not chunk or chunk < 0 or chunk ~= math.floor(chunk) or chunk >= tonumber(p[5] or '0') then return { E_INVALID_INPUT } end

if redis.call('HSETNX', prefix .. 'chunks:' .. d, lane .. ':' .. ARGV[8], now) == 0 then return { R_ALREADY } end
local pending = redis.call('HINCRBY', pk, 'pending', -1)
if pending <= 0 and not redis.call('HGET', pk, 'done') then
  for l in string.gmatch(redis.call('HGET', pk, 'decl') or '', '(%d+):%d+') do
    if not laneComplete(prefix, d, l, now) then return { R_OK } end
  end
  redis.call('HSET', pk, 'done', now)
  redis.call('ZADD', KEYS[2], ARGV[2], d)
  redis.call('DEL', prefix .. 'done:' .. d)
  redis.call('HSET', prefix .. 'done:' .. d, 'at', now, 'maxobs', p[6])
end
return { R_OK }
