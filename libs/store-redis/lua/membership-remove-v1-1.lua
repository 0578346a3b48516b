--[[
  Removes users from one conversation's member set (absent ones ignored).

  Input:
    KEYS[1] members    <ns>:members:{<tenant>:<conversation>}   set of 32-hex user ids

    ARGV[1…] users     32-hex user ids to remove

  Output:
    {0, n}   n = member count after the change
]]
--- @include "result-codes"

for i = 1, #ARGV do redis.call('SREM', KEYS[1], ARGV[i]) end
return { R_OK, redis.call('SCARD', KEYS[1]) }
