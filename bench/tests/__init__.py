"""The benchmarks' own tests: the harnesses measure what they say, run by `make test`."""
