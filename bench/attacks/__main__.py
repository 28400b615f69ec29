"""``python -m bench.attacks``: every attack against one ``floe run`` (``--help``)."""

from bench.attacks.harness import main

raise SystemExit(main())
