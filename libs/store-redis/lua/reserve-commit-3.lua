--[[
  Creates the RESERVED commit of a request, or answers the existing one. Atomically:
    1. a live commit under the key (present and its aux expiry > now) is compared by identity:
       equal bytes → replay reply with its current state and intent; different → conflict;
    2. otherwise (absent or logically expired) the commit hash is (re)written whole as
       RESERVED with its aux expiry, its recovery index member is added (score created_at) and
       its aux-GC member (score aux expiry), and a one-time physical expiry is set.
  The seq inside the intent was allocated before this script (INCR on the conversation); a lost
  race leaves that seq as a legal hole. The recovery member is written in the same atomic step as
  the commit, so no commit can exist without its recovery entry.

  Input:
    KEYS[1] commit hash          {cs:<shard>}:commit:<tenant><sender><client id>
    KEYS[2] recovery index zset  {cs:<shard>}:recovery   member = commit id, score = created_at ms
    KEYS[3] aux GC zset          {cs:<shard>}:aux        member = commit id, score = aux expiry ms

    ARGV[1] now              caller clock, 16-hex ms
    ARGV[2] identity         32 bytes (SHA-256 of the canonical request)
    ARGV[3] intent           CommitIntent codec bytes (state RESERVED, no publication)
    ARGV[4] message id       32 hex
    ARGV[5] created score    created_at ms, decimal (ZSET score)
    ARGV[6] aux expiry       16-hex ms (now + aux TTL)
    ARGV[7] aux expiry score decimal ms (ZSET score, clamped)
    ARGV[8] member           commit id (96 hex: tenant, sender, client message id)
    ARGV[9] grace            physical clean-up grace, decimal ms

  Output:
    {0}                   created
    {1, state, intent}    replay: the live commit has the same identity
    {-2}                  conflict: the live commit has another identity
]]
--- @include "result-codes"
--- @include "commit-states"
--- @include "physical-expiry"

local key = KEYS[1]
local now = ARGV[1]

local current = redis.call('HMGET', key, 'identity', 'state', 'intent', 'expires')
if current[1] and current[4] and hexCmp(current[4], now) > 0 then
  if current[1] == ARGV[2] then
    return { R_ALREADY, current[2], current[3] }
  end
  return { E_CONFLICT }
end

redis.call('DEL', key)
redis.call('HSET', key, 'identity', ARGV[2], 'intent', ARGV[3], 'state', 'RESERVED', 'message', ARGV[4],
  'expires', ARGV[6], 'created', ARGV[5])
redis.call('ZADD', KEYS[2], ARGV[5], ARGV[8])
redis.call('ZADD', KEYS[3], ARGV[7], ARGV[8])
expireOnce(key, ARGV[7], ARGV[9])
return { R_OK }
