-- Take one of at most `limit` expiring slots of a sorted set: drops lapsed slots and the
-- `dropping` members (holders the caller found dead), then takes one if fewer than the
-- limit are held: 1 taken, 0 refused. The key itself lapses with its longest slot (relative
-- to `now_ms`: the service clock may not be Redis's).
-- KEYS: slots
-- ARGV: now_ms until_ms limit holder dropping...
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
for i = 5, #ARGV do redis.call('ZREM', KEYS[1], ARGV[i]) end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[4])
local life = tonumber(ARGV[2]) - tonumber(ARGV[1])
if redis.call('PTTL', KEYS[1]) < life then redis.call('PEXPIRE', KEYS[1], life) end
return 1
