"""What campaigns tells the apps above it, which it does not import (pyproject.toml's contracts):
each receiver runs in the sender's transaction, so a write and what follows from it commit, or
are refused, together."""

from django.dispatch import Signal

#: A Mana campaign's palette changed (``services.campaign_palette_update``): sent with
#: ``campaign`` (its new ``palette`` saved), ``renamed`` ([(old name, new name)] of the colors
#: renamed) and ``palette``. Sheets renames its characters' pools and gives each one a pool of
#: every color.
palette_changed = Signal()
