-- Append events if the log's head is still the one they were sealed after.
-- Every check runs before the first write, so a refused append changes nothing. An accepted
-- one records the command (for idempotency), the new head and status, the events' bytes
-- (meta 'bytes', what budgets per creator add up), and publishes the new
-- head on the appends channel, as creating does, with the events themselves.
-- Returns {'ok', version}, {'duplicate', the command's record}, {'conflict', version} or
-- {'missing', ''}.
-- KEYS: events meta commands
-- ARGV: channel expected_version expected_head new_head command_key command_record status new_events...
if ARGV[5] ~= '' then
  local prior = redis.call('HGET', KEYS[3], ARGV[5])
  if prior then return {'duplicate', prior} end
end
local version = tonumber(redis.call('HGET', KEYS[2], 'version'))
if version == nil then return {'missing', ''} end
if version ~= tonumber(ARGV[2]) or redis.call('HGET', KEYS[2], 'head') ~= ARGV[3] then
  return {'conflict', tostring(version)}
end
local bytes = 0
for i = 8, #ARGV do
  version = version + 1
  redis.call('XADD', KEYS[1], '0-' .. version, 'e', ARGV[i])
  bytes = bytes + string.len(ARGV[i])
end
redis.call('HSET', KEYS[2], 'version', version, 'head', ARGV[4])
redis.call('HINCRBY', KEYS[2], 'bytes', bytes)
if ARGV[7] ~= '' then redis.call('HSET', KEYS[2], 'status', ARGV[7]) end
if ARGV[5] ~= '' then redis.call('HSET', KEYS[3], ARGV[5], ARGV[6]) end
-- The message is the new head, then each event on a line of its own, as stored but with every
-- space written \u0020 (the same JSON value): a process's live streams take the events from it
-- rather than read them back (store/appends.py), and '<key> <version>' is still what precedes
-- the message's last space. Canonical JSON holds no raw newline. The events ride only while
-- the whole message, escaped, stays within 64 KiB (a space grows sixfold, so the stored bytes
-- alone do not bound it); past that it is the head alone, and the listeners read the stream.
local message = KEYS[1] .. ' ' .. version
if bytes <= 65536 then
  local lines = {message}
  local size = string.len(message)
  for i = 8, #ARGV do
    local line = string.gsub(ARGV[i], ' ', '\\u0020')
    size = size + 1 + string.len(line)
    if size > 65536 then break end
    lines[#lines + 1] = line
  end
  if size <= 65536 then message = table.concat(lines, '\n') end
end
redis.call('PUBLISH', ARGV[1], message)
return {'ok', tostring(version)}
