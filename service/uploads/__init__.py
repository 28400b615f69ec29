"""Uploaded export files, audited off the API's event loop: the answer (``answer``), the
child process that computes it (``child``), the frames it is asked and answers in
(``frames``), and the pool of children with its limits (``pool``)."""
