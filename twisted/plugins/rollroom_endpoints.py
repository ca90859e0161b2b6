"""Rollroom's twisted plugins, which twisted finds in ``twisted/plugins/`` of every folder on
the path (this folder and ``twisted/`` have no ``__init__.py``: they add to twisted's package,
never hide it). ``rollroomtls:``, the endpoint ``manage.py host --cert --key`` serves HTTPS on
(rolls/https_port.py).

Twisted keeps what it found in ``dropin.cache`` beside this file (ignored by git); where it
cannot write it, it looks again at each start, and says so only in twisted's log, which daphne
discards unless run with ``-v 2``.
"""

from rolls.https_port import RollroomTLSParser

rollroomtls = RollroomTLSParser()
