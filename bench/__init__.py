"""The roll benchmark (``python manage.py bench_rolls``) and its floors; see bench/README.md.

- ``command``: the management command: starts the servers, runs the phases, prints the result.
- ``settings``, ``urls``, ``asgi``: the benchmark server's settings, the app's with the floors
  routed (``DJANGO_SETTINGS_MODULE=bench.settings``, ``daphne bench.asgi:application``).
- ``stats``: percentiles and the summary of one phase.
- ``server``: start, pin, measure and stop server processes.
- ``meters``: the CPU of PostgreSQL's backends serving the servers, of Redis, and of a proxy.
- ``caddy``: Caddy with deploy/Caddyfile and ``tls internal`` on loopback (``--through-caddy``;
  the deployment tests' ``tests.faults.Caddy``).
- ``data``: the benchmark's users, campaigns, characters, checks and sessions (ORM).
- ``client``: a small keep-alive HTTP/1.1 client and the arrival tracker of the sockets.
- ``phases``: one open-loop phase (the app or a floor) from scheduling to summary.
- ``runner``: the app's phase and the floors' phases of one run, one after the other.
- ``report``: the result as JSON and as the printed table.
- ``floors``: the bare Django view and Channels consumer.
- ``wsfloor``: a plain ``websockets`` broadcast server, run as its own process.
- ``sockets``: ``bench_sockets``, idle room sockets by the thousand on one daphne process;
  ``crowd``: their rooms, members and the client processes holding them; ``fanout``: the
  measured room, its rolls, token moves and turn changes timed to every socket.
"""
