-- Create a game: event 1, its secret seed and its metadata, only if the game does not exist.
-- Publishes the new head on the appends channel (store/appends.py wakes the game's waiters).
-- The meta's 'bytes' counts the stored events' bytes (what budgets per creator add up).
-- Returns 'ok', or 'exists' with nothing written.
-- KEYS: events meta seed
-- ARGV: channel first_event head seed_hex meta_pairs...
if redis.call('EXISTS', KEYS[2]) == 1 then return 'exists' end
redis.call('XADD', KEYS[1], '0-1', 'e', ARGV[2])
redis.call('SET', KEYS[3], ARGV[4])
redis.call('HSET', KEYS[2], 'version', 1, 'head', ARGV[3], 'bytes', string.len(ARGV[2]))
for i = 5, #ARGV, 2 do redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1]) end
redis.call('PUBLISH', ARGV[1], KEYS[1] .. ' 1')
return 'ok'
