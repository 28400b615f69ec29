-- Take a seat at a table if it is still open and free.
-- Returns {'ok', open seats left}; the last seat turns the table 'starting' (its game is made
-- next), and only a joiner holding the host's quota slot for the game may take it. Refusals
-- write nothing: {'missing'}, {'not_open', status}, {'table_full'}, {'name_taken', seat} (that
-- seat's name reads as the joiner's: ARGV same is the joiner's name_key, NFC and case folded
-- (store.py), compared here with each seat's 'same', so two joiners racing under one name
-- cannot both sit),
-- {'taken'} (another joiner took that seat first: read again), {'reserve_first'}.
-- The joiner's public key ('' for none) is kept beside the seat's name, for the game's seat.
-- KEYS: table
-- ARGV: seat name token_hash holds_quota public_key same
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return {'missing'} end
if status ~= 'open' then return {'not_open', status} end
local n = tonumber(redis.call('HGET', KEYS[1], 'seats'))
local free = 0
for i = 0, n - 1 do
  local prefix = 'seat:' .. i .. ':'
  if redis.call('HGET', KEYS[1], prefix .. 'open') == '1'
      and redis.call('HEXISTS', KEYS[1], prefix .. 'token') == 0 then
    free = free + 1
  end
end
if free == 0 then return {'table_full'} end
for i = 0, n - 1 do
  local prefix = 'seat:' .. i .. ':'
  local same = redis.call('HGET', KEYS[1], prefix .. 'same')
  -- a table written before names had keys: its seats' names, as given
  if not same then same = redis.call('HGET', KEYS[1], prefix .. 'name') end
  if same == ARGV[6] then return {'name_taken', tostring(i)} end
end
local prefix = 'seat:' .. ARGV[1] .. ':'
if redis.call('HGET', KEYS[1], prefix .. 'open') ~= '1'
    or redis.call('HEXISTS', KEYS[1], prefix .. 'token') == 1 then
  return {'taken'}
end
if free == 1 and ARGV[4] ~= '1' then return {'reserve_first'} end
redis.call('HSET', KEYS[1], prefix .. 'name', ARGV[2], prefix .. 'same', ARGV[6],
  prefix .. 'token', ARGV[3])
if ARGV[5] ~= '' then redis.call('HSET', KEYS[1], prefix .. 'key', ARGV[5]) end
if free == 1 then redis.call('HSET', KEYS[1], 'status', 'starting') end
return {'ok', free - 1}
