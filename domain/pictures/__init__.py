"""What every game's pictures share: seat colours and the small helpers that draw with them.

Each game draws itself (``text.py`` and ``svg.py`` in its own package, exported through its
``Game`` bundle) from its *view* JSON only; these helpers know nothing of any game, so all
pictures look alike and a new game needs no change here.
"""
