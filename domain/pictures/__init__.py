"""What every game's pictures share: seat colours, the words and the small helpers they use.

Each game draws itself (``text.py`` and ``svg.py`` in its own package, exported through its
``Game`` bundle) from a ``Scene`` (``domain.engine.game``): the *view* JSON, the seat names,
the last action and the outcome, never the board. These helpers know nothing of any game:
``svg`` (colours, elements, the header, the outcome and last-move caption, ``MARK``), ``text``
(ANSI seat colours) and ``words`` (names, ``[x, y]``, the outcome and last move in words,
wrapping to 80 columns), so all pictures look and read alike and a new game needs no change
here.
"""
