--[[
  The server process's run id (`INFO server`, 40 hex): every start of redis-server draws a new one,
  so a restart, a restored backup or a promoted replica between two scripts of one operation shows
  as a different id, whatever the data looks like.
]]
local function serverRunId()
  return string.match(redis.call('INFO', 'server'), 'run_id:(%x+)') or ''
end
