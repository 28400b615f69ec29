-- Write a new tournament: 1, or 0 if the id is taken. `status` is `running` (round 1 made at
-- once) or `open` (a manual start: no round yet). `summary` is what the list shows of it.
-- KEYS: tournament
-- ARGV: channel spec seeds rounds made status summary
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'spec', ARGV[2], 'seeds', ARGV[3], 'rounds', ARGV[4],
           'made', ARGV[5], 'status', ARGV[6], 'summary', ARGV[7], 'decisions', '[]',
           'writes', 0, 'changes', 0)
redis.call('PUBLISH', ARGV[1], KEYS[1] .. ' 0')
return 1
