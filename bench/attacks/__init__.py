"""How fast honest clients are served while Floe is under attack: ``python -m bench.attacks``.

Against one real ``floe run`` (its own Redis, workers and gevent API, every limit at its
default), one attack at a time, each bounded in time, torn down, and the service checked
healthy before the next (``catalog.py`` says what each does, from which addresses):

- ``uploads``: 2 MiB junk exports (``b'0\\n' * 1048568``) to ``POST /v1/replays``, two at
  once from each of several addresses, and a real long export uploaded in a loop;
- ``slowloris``: 2,500 connections from one address, each trickling a header byte (far past
  the 128 an address may hold per API process, ``FLOE_CONNECTIONS_PER_ADDRESS``);
- ``streams``: 2,100 idle live streams from 35 addresses;
- ``read-ahead``: 300 requests to health and a move route declaring a 2 MiB body, sent all
  but its last bytes and held;
- ``boards``: pictures of a long game's past versions at the rate limit, from 4 addresses;
- ``bots``: 16 four-seat all-mcts Arktia games on the biggest board from one address.

Measured, idle and then attacked, in the same run (``harness.py``): health and a person's
move (p99 < 250 ms under every attack); a random bot's reply to a person under the bot
flood (p99 < 3 s); the API's resident memory, all its processes, under the read-ahead
attack (growth < 150 MB). One table; ``--only NAME`` and ``--quick`` for less.
"""
