--[[
  The commit-shard half of a reserve: claims the commit key for a request, or answers the live
  commit that holds it. Atomically:
    1. a live commit under the key (present and its aux expiry > now) is returned as it is (the
       caller compares identities: equal → replay, different → conflict);
    2. otherwise the hash is (re)written whole as CLAIMED with everything needed to finish the
       commit once its seq is known (identity, request bytes, recipients) and its aux expiry; the
       recovery index member (score created_at) and the aux-GC member are added and a one-time
       physical expiry is set.
  The seq is claimed at the conversation by claim-seq in the same round trip (another hash tag). A
  CLAIMED commit whose seq claim exists is RESERVED; mark-recorded writes its complete intent. The
  recovery member exists from the claim on, so a crash after the seq claim or the record write
  leaves something the recovery scan finds.

  Input:
    KEYS[1] commit hash          {cs:<shard>}:commit:<tenant><sender><client id>
    KEYS[2] recovery index zset  {cs:<shard>}:recovery   member = commit id, score = created_at ms
    KEYS[3] aux GC zset          {cs:<shard>}:aux        member = commit id, score = aux expiry ms

    ARGV[1] now              caller clock, 16-hex ms
    ARGV[2] identity         32 bytes (SHA-256 of the canonical request)
    ARGV[3] request          SendRequest codec bytes
    ARGV[4] recipients       the sorted, unique recipients, 16 bytes each, concatenated
    ARGV[5] created score    created_at ms (candidate), decimal (ZSET score)
    ARGV[6] aux expiry       16-hex ms (now + aux TTL)
    ARGV[7] aux expiry score decimal ms (ZSET score, clamped)
    ARGV[8] member           commit id (96 hex: tenant, sender, client message id)
    ARGV[9] grace            physical clean-up grace, decimal ms

  Output:
    {0}                                                 claimed
    {1, identity, state, intent|nil, recipients|nil}    a live commit holds the key
]]
--- @include "result-codes"
--- @include "commit-states"
--- @include "physical-expiry"

local key = KEYS[1]
local c = commitFields(key)
if isLive(c, ARGV[1]) then return { R_ALREADY, c[3], c[1], c[2], c[4] } end

-- an expired commit's hash is replaced whole
if c[1] or c[3] or c[5] then redis.call('DEL', key) end
redis.call('HSET', key, 'identity', ARGV[2], 'state', 'CLAIMED', 'request', ARGV[3], 'recipients', ARGV[4], 'expires', ARGV[6])
redis.call('ZADD', KEYS[2], ARGV[5], ARGV[8])
redis.call('ZADD', KEYS[3], ARGV[7], ARGV[8])
expireOnce(key, ARGV[7], ARGV[9])
return { R_OK }
