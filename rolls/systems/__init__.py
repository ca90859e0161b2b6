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
panel sections; Pool's sparetime ledger is the ``sparetime`` app above rolls, with its own),
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
templates: the engine's ``APP_DIRS``), its folder ``RuleSystem.template`` names.

What every system's package is built of besides its ``RuleSystem`` is written once beside it:
``scaffold.py`` (its package's ``SYSTEM`` imported when first asked for, its URLs' prefixes,
its GM panel sections that load on their own), ``models.py`` (its own rows read along or
defaulted) and ``admin.py`` (its rows as inlines of the campaign's and the character's admin
pages); a
system's own files hold only what differs. A fourth system, Fate-style, lives in the tests
(tests/systems/fate/) with nothing outside its package but the setting that installs it.
"""

import re
from importlib import import_module

from django.core.exceptions import ImproperlyConfigured
from django.template import TemplateDoesNotExist
from django.template.loader import get_template

from campaigns.systems import SYSTEMS, system_of

from .base import RuleSystem, Sheet

__all__ = [
    "SYSTEMS",
    "RuleSystem",
    "Sheet",
    "refusals",
    "register",
    "register_all",
    "system_of",
]


#: What a key must look like: a readable slug, also the folder of its templates.
KEY = re.compile(r"[a-z][a-z0-9_-]*")


def register(path):
    """Register the system of the package at ``path`` (its ``SYSTEM``) under its key, once
    ``refusals`` finds nothing wrong with it; else ImproperlyConfigured, at start-up (``rolls``
    registers them at its ``ready()``), saying what is wrong, rather than a 500 on the first
    page that needs what it lacks."""
    system = import_module(path).SYSTEM
    wrong = refusals(system)
    if wrong:
        key = getattr(system, "key", None)
        raise ImproperlyConfigured(
            f"The rule system {key!r} of {path} cannot be registered: {'; '.join(wrong)}."
        )
    SYSTEMS[system.key] = system
    return system


def refusals(system):
    """What is wrong with ``system``, in sentences ([]: nothing): not a ``RuleSystem``; its key
    not a readable slug the column ``Campaign.system`` holds, or another system's; a member it
    must give (``RuleSystem.REQUIRED``, its sheet's ``Sheet.MEMBERS``) left out; a template it
    names, or one the pages include by its key (``RuleSystem.FIXED_TEMPLATES``), missing."""
    from campaigns.models import Campaign

    if not isinstance(system, RuleSystem):
        return [f"its SYSTEM is a {type(system).__name__}, not a rolls.systems.RuleSystem"]
    wrong = []
    key, longest = system.key, Campaign._meta.get_field("system").max_length
    if not isinstance(key, str) or not KEY.fullmatch(key):
        wrong.append(f"its key {key!r} is not a slug of lowercase letters, digits, - and _")
    elif len(key) > longest:
        wrong.append(f"its key is {len(key)} characters, Campaign.system holds {longest}")
    elif SYSTEMS.get(key, system) is not system:
        wrong.append(f"another system is registered under the key {key!r}")
    missing = [name for name in RuleSystem.REQUIRED if _left_out(system, name)]
    missing += [f"sheet.{m}" for m in Sheet.MEMBERS if not callable(getattr(system.sheet, m, 0))]
    own = type(system)
    if system.rolled is not None or own.rolled_groups is not RuleSystem.rolled_groups:
        if own.exact_distribution is RuleSystem.exact_distribution:
            missing.append("exact_distribution (its rolled_groups gives distributions)")
    if system.calculator is not None and not system.calculator_template:
        missing.append("calculator_template (it has a calculator)")
    for fields, template in (("create_fields", "create"), ("settings_fields", "settings")):
        if getattr(own, fields) is not getattr(RuleSystem, fields):
            if not getattr(system, f"{template}_template"):
                missing.append(f"{template}_template (it has {fields})")
    if missing:
        wrong.append(f"it gives no {', '.join(missing)}")
    if not wrong:
        absent = [name for name in templates(system) if not _found(name)]
        if absent:
            wrong.append(f"its templates {', '.join(absent)} are not there")
    return wrong


def templates(system):
    """Every template ``system`` names, and those the pages include by its key
    (``RuleSystem.fixed_templates``)."""
    named = [
        system.open_check_note,
        system.session_template,
        system.summary_template,
        system.create_template,
        system.settings_template,
        system.calculator_template,
        system.party_head,
        system.party_cells,
        *system.campaign_sections,
        *(
            t
            for in_order in (system.sheet_sections, system.panel_cards, system.panel_sections)
            for _name, t in in_order
        ),
        *(piece.template for piece in (*system.sheet_pieces, *system.gm_pieces)),
    ]
    return system.fixed_templates() + list(dict.fromkeys(name for name in named if name))


def _left_out(system, name):
    """Whether ``system`` leaves ``name`` as the base has it: None, "" or its method."""
    value = getattr(system, name, None)
    method = getattr(value, "__func__", None)
    inherited = method is not None and method is getattr(RuleSystem, name)
    return value is None or value == "" or inherited


def _found(name):
    try:
        get_template(name)
    except TemplateDoesNotExist:
        return False
    return True


def register_all():
    """Register every package the setting ``ROLL_SYSTEMS`` names (``rolls`` at its
    ``ready()``; a test that changed the setting, again)."""
    from django.conf import settings

    return [register(path) for path in settings.ROLL_SYSTEMS]
