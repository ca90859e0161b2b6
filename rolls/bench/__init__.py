"""``python manage.py bench_rolls``: the roll benchmark (issue 5) and its floors.

- ``stats``: percentiles and the summary of one phase.
- ``server``: start, pin, measure and stop server processes.
- ``data``: the benchmark's users, campaigns, characters, checks and sessions (ORM).
- ``client``: a small keep-alive HTTP/1.1 client and the arrival tracker of the sockets.
- ``phases``: one open-loop phase (the app or a floor) from scheduling to summary.
- ``floors``: the bare Django view and Channels consumer (routed only with BENCH_FLOORS).
- ``wsfloor``: a plain ``websockets`` broadcast server, run as its own process.
"""
