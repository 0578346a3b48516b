--[[
  Stores a message record and its history index row (same-value overwrite). Atomically:
    1. an existing record at this seq with other bytes, or an existing index row with other
       content, is a conflict and nothing is written;
    2. the record is (re)written keeping any physical expiry it already has, the index row
       added; an Ephemeral message also gets its expiry member and a one-time physical expiry.
  The commit state moves to RECORDED afterwards (mark-recorded, another hash tag).

  Input:
    KEYS[1] history index zset  {cv:<tenant><conv>}:index   (lex members, see history-index)
    KEYS[2] record              {cv:<tenant><conv>}:rec:<seq 16 hex>
    KEYS[3] expiry zset         {cv:<tenant><conv>}:expiry  member = seq hex, score = expiry ms

    ARGV[1] seq           16 hex
    ARGV[2] index member  65 chars (seq | expiry | countable | sender)
    ARGV[3] record        MessageRecord codec bytes
    ARGV[4] expiry        decimal ms of an Ephemeral message's absolute expiry; '' = never
    ARGV[5] grace         physical clean-up grace, decimal ms

  Output:
    {0}    written (or rewritten with the same value)
    {-2}   conflict: another record or index row already holds this seq
]]
--- @include "result-codes"
--- @include "history-index"
--- @include "physical-expiry"

local existing = redis.call('GET', KEYS[2])
if existing and existing ~= ARGV[3] then return { E_CONFLICT } end
local row = rowOf(KEYS[1], ARGV[1])
if row and row ~= ARGV[2] then return { E_CONFLICT } end

redis.call('SET', KEYS[2], ARGV[3], 'KEEPTTL')
redis.call('ZADD', KEYS[1], 0, ARGV[2])
if ARGV[4] ~= '' then
  redis.call('ZADD', KEYS[3], ARGV[4], ARGV[1])
  expireOnce(KEYS[2], ARGV[4], ARGV[5])
end
return { R_OK }
