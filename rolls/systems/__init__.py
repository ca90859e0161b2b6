"""The rule systems a campaign plays, each behind one interface.

``system_of(campaign)`` returns the system of ``campaign``: a ``RuleSystem``
(``rolls/systems/base.py``), whose members, each with its default and what it means, are the
whole interface a system offers; a system's ``sheet`` is a ``base.Sheet``. ``register`` refuses
at start-up a system that is not one, misses a member it must give, names a template that is not
there, or whose key is no readable slug the column holds.

A system is a package, ``rolls/systems/<key>/`` (``pool``, ``mana``), whose ``SYSTEM`` is that
object: ``system.py`` (the object, its roll form and odds), ``calculator.py`` and ``report.py``
(what the insight pages ask of it), ``urls.py`` (its pages' URLs; their views in its
``views.py``: its sheet section's writes, answered with ``sheets.sections``' API, and its GM
panel sections; Pool's include the pages of its sparetime ledger, ``sparetime/``, an app of
its package, label ``sparetime``, which ``SYSTEM_APPS`` installs, routed only there),
``forms.py`` (its views' forms), ``apps.py`` (the package is a Django app too, which
``ROLL_SYSTEMS`` puts in ``INSTALLED_APPS``; its ``SYSTEM`` is imported when first asked for),
and where it has models of its own, ``models.py``, ``admin.py`` and ``migrations/`` (Mana's
settings, its palette; a character's traits; its skills and pools, app label ``mana``, on the
tables they had in ``campaigns`` and ``sheets``; Pool's settings, its costs and hit points,
a character's HP and its ratings, label ``pool``; each one's row of a check, ``ManaCheck`` and
``PoolCheck``, from columns of ``Check``),
``services.py`` (its writes:
the roll; ``rolls.services`` keeps what every system shares and asks the system for its part:
``check_fill(check, **about)``, its own row of a new check, given what it is about
(``rolls.services.check_ask``'s ``about``: ``{about_field: value}``; the check itself keeps
the ``suggestion``, if there is one): Mana's ``ManaCheck``, Pool's ``PoolCheck``, nothing for a
system without one;
``npc_asked(data)`` and ``roll_npc(check, by=, data=)``, the GM's one-step NPC roll). The setting
``ROLL_SYSTEMS`` names the packages; ``rolls`` registers them at its ``ready()`` into
``campaigns.systems.SYSTEMS``, the registry the floors below rolls read too (``register_all``).
A system's templates are in its package, ``templates/rolls/systems/<key>/`` (an app's
templates: the engine's ``APP_DIRS``).
"""

from importlib import import_module

from campaigns.systems import SYSTEMS, system_of

from .base import RuleSystem, Sheet

__all__ = ["SYSTEMS", "RuleSystem", "Sheet", "register", "register_all", "system_of"]


def register(path):
    """Register the system of the package at ``path`` (its ``SYSTEM``) under its key."""
    system = import_module(path).SYSTEM
    SYSTEMS[system.key] = system
    return system


def register_all():
    """Register every package the setting ``ROLL_SYSTEMS`` names (``rolls`` at its
    ``ready()``; a test that changed the setting, again)."""
    from django.conf import settings

    return [register(path) for path in settings.ROLL_SYSTEMS]
