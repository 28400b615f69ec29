"""The job workers: draws, bot moves and tournament advances, run on RQ from a backlog.

- ``queue``: what the service enqueues: items named ``<kind>-<game_id>-<version>``
- ``backlog``: where items wait and who holds which (its Lua scripts beside it)
- ``drains``: the RQ jobs that each run many items, draws first, one bot thinking at a time
- ``handlers``: what an item does (``Automation``)
- ``deadlines``: an item stuck past its deadline ends its worker process
- ``sweeper``: finds in the event store what no worker will do, and adds it again
- ``worker``: ``floe worker``, built by ``service.bootstrap.build_worker``
"""
