"""What every game's pictures share: seat colours, the words and the small helpers they use.

Each game draws itself (``text.py`` and ``svg.py`` in its own package, exported through its
``Game`` bundle) from a ``Scene`` (``domain.engine.game``): the *view* JSON, the seat names,
the last action and the outcome, never the board. These helpers know nothing of any game:
``svg`` (colours, elements and shapes, the header, the caption of outcome, last move and what
is owed, the last move's outline in ``MARK``, seat rows and keys; a game's ``svg.py`` imports
it as ``draw``), ``text`` (ANSI seat colours, the caption lines) and ``words`` (names,
``[x, y]``, the outcome, the last move and what is owed in words, wrapping to 80 columns), so
all pictures look and read alike and a new game needs no change here.
"""
