-- Delete a finished game's keys, once the archive holds it: only if the game is over and its
-- head is still the one the archived copy ends with, so nothing appended after the copy is
-- ever lost (nothing can be: a game over takes no appends; this checks anyway).
-- Returns 'deleted', 'gone' (no game: deleted before), 'live' (not over) or 'moved' (its head
-- is another).
-- KEYS: events meta seed commands
-- ARGV: expected_head
local head = redis.call('HGET', KEYS[2], 'head')
if not head then return 'gone' end
if redis.call('HGET', KEYS[2], 'status') ~= 'over' then return 'live' end
if head ~= ARGV[1] then return 'moved' end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4])
return 'deleted'
