--[[
  Stores a message record and its history index row (same-value overwrite), only for the commit
  that holds the seq. Atomically:
    1. the seq claim of the commit must be live and be exactly the intent's (identity, seq, message
       id, created_at) — else nothing is written and the caller decides from the stored commit;
    2. an existing record at this seq with other bytes, or an existing index row with other
       content, is a conflict and nothing is written;
    3. the record is (re)written keeping any physical expiry it already has, the index row added;
       an Ephemeral message also gets its expiry member and a one-time physical expiry.
  The commit state moves to RECORDED afterwards (mark-recorded, another hash tag).

  Input:
    KEYS[1] history index zset  {cv:<tenant><conv>}:index   (lex members, see history-index)
    KEYS[2] record              {cv:<tenant><conv>}:rec:<seq 16 hex>
    KEYS[3] expiry zset         {cv:<tenant><conv>}:expiry  member = seq hex, score = expiry ms
    KEYS[4] seq claim           {cv:<tenant><conv>}:claim:<commit id>

    ARGV[1] seq           16 hex
    ARGV[2] index member  65 chars (seq | expiry | countable | sender)
    ARGV[3] record        MessageRecord codec bytes
    ARGV[4] expiry        decimal ms of an Ephemeral message's absolute expiry; '' = never
    ARGV[5] grace         physical clean-up grace, decimal ms
    ARGV[6] now           caller clock, 16-hex ms
    ARGV[7] claim         the expected claim without its expiry (96 bytes: identity | seq | message
                          id | created_at, as claim-seq stores them)

  Output:
    {0}    written (or rewritten with the same value)
    {-1}   no live seq claim for the commit
    {-6}   the live claim is not the intent's
    {-2}   conflict: another record or index row already holds this seq
    {-7}   the stored claim is malformed
]]
--- @include "result-codes"
--- @include "history-index"
--- @include "physical-expiry"

local claim = redis.call('GET', KEYS[4])
if not claim then return { E_NOT_FOUND } end
if #claim ~= 112 then return { E_CORRUPT } end
if hexCmp(string.sub(claim, 97, 112), ARGV[6]) <= 0 then return { E_NOT_FOUND } end
if string.sub(claim, 1, 96) ~= ARGV[7] then return { E_CAS_LOST } end

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
