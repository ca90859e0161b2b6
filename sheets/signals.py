"""What sheets tells the apps above it, which it does not import (pyproject.toml's contracts):
each receiver runs in the sender's transaction, and may refuse the write (``core.writes.Refused``:
nothing changes)."""

from django.dispatch import Signal

#: The GM hands ``character`` (of ``campaign``) over to the player ``to``
#: (``services.character_hand_over``; the owner is written after the receivers). Rolls moves its
#: live checks to the new player, or refuses while it has a live GM-secret check.
handing_over = Signal()
