"""The rule systems a campaign plays, each behind one interface.

``system_of(campaign)`` returns the system of ``campaign``: an object with

* ``key`` (``Campaign.system``), ``name``, ``summary`` (what it plays like, in a sentence: the
  new-campaign form says it under the choice), ``number`` (what a check's target is called),
  ``any_choice`` (what an open choice is called) and ``about_field`` (the name of the field of
  the ask and request forms that says what a check is about), ``about_form_field(campaign)``
  (that field: ``rolls.forms.suggestion_field()`` for a typed suggestion);
* ``check_related``: its own row of a check (a ``OneToOneField`` to ``Check``: what the check
  binds the roll to, e.g. Mana's skill, and what else it keeps, Pool's shift), which
  ``Check.objects.of`` reads along with the check (``select_related``; ``()``: none), and
  ``card_related``, what a check's card reads along besides (e.g. a Pool shift's ratings);
  ``open_check_note``:
  the template of what an open check's card says above its roll form (Pool: a declined shift;
  "": nothing);
* ``suggestions()``: names offered while typing what a check is about;
* ``roll_context(check, form=None, changed=None)``: the roll form of an open check (``form``;
  none when there is nothing to roll, which its ``_roll_fields.html`` says), its choices and its
  live odds (``odds``); ``roll_form(check, data)``: the bound form (an ``intent`` field among
  its fields; validated already, where its fields are: a roll's request enters the system's
  module once); ``odds(check, form)``: the odds
  of what the form holds (``{"dice", "chance"}``), or why it would be refused (``{"error"}``);
* ``roll(check, by, data)``: the roll itself (the write; Pool's and Mana's: their
  ``services.roll``, called straight from the view's write), from the form's cleaned data;
  it refuses anything but what the check asks for, when it asks for something; its entry's
  data keeps the roll's chance as ``rules.odds.as_text`` writes it (``chance``: exact, or a
  marked approximation when the fraction is too long), which the insights read back with
  ``rules.odds.read``;
  ``roll_facts``: what a roll changes of its character's facts (``"private"``: Mana's pools;
  ``"public"``; None: nothing), which the roll's pushes tell the pages showing them
  (``core.writes.attempt``'s ``facts``);
* ``asked(check)``: what the check asks to roll, as text ("" for any: the player chooses);
* ``proposal(check)``: what a shift awaiting the GM would roll (systems without shifts: None);
  ``answer_shift(check=, approve=, reason=)``: the GM's answer to it, the write (None: no
  shifts); the card of a check awaiting it is its ``_shift.html`` (given ``proposal``);
* ``closed_by_gm(check, last_roll)``: whether a done check was closed without a success;
* the campaign's settings, in the create form and the GM panel's settings form
  (``campaigns.forms``; field names unique across systems, the create form holds every
  system's): ``create_fields()`` and ``settings_fields(campaign)``, the form fields by name
  (``{}``: none); ``clean_create(form, cleaned)`` and ``clean_settings(form, cleaned)``, called
  from the form's ``clean`` for the chosen (or the campaign's) system, which may change
  ``cleaned``, ``form.add_error`` or raise ValidationError; ``settings_keys``, what of the
  cleaned settings ``campaigns.services.campaign_settings_update`` takes and gives to
  ``settings_update(campaign, **them)``, the system's write of them (``create_fields()``'
  cleaned data all go to ``campaign_create``, which gives them, e.g. Mana's palette and
  skills, to ``campaign_fill(campaign, **them)``, the system's part of a new campaign);
  ``campaign_related``, the names of its own rows of a campaign (its settings' model, a
  ``OneToOneField`` to ``Campaign``) that ``campaigns.access`` reads along with the campaign
  (``select_related``; ``()``: none); ``character_related``, those of a character (Mana's
  traits, Pool's HP), which ``sheets.access.character_for``, ``Check.objects.of`` and the NPC
  roll's choice read along with it (``()``: none);
* ``session_template``, what it adds to the room's session panel ("": nothing), given
  ``session_context(campaign, last, **overrides)`` (``last`` the latest session; ``overrides``
  a write's answer's, ``rolls.views.session_answer``): Pool's sparetime award once a session
  ended; ``summary_template``, what it adds to a session's summary ("": nothing), given
  ``summary_context(campaign, session)``: Pool's sparetime awarded for it;
  ``create_template`` and ``settings_template``,
  the templates of those fields (given them as ``fields``; read only when there are fields):
  the create page wraps the first in the system's ``fieldset[data-system]``, the second
  holds its own fieldset;
* what it adds to a character: ``sheet``, its module (``sheet.py``): ``character_fill`` (a
  new character's own rows, e.g. Pool's ratings and HP), ``party_characters`` and
  ``party_row`` (the party's rows), ``section_context(campaign, character, section,
  private=)`` (the context of its sheet sections: ``section`` one's, or None for the whole
  sheet); ``sheet_sections``, the ``(name, template)`` of its sections on the sheet page
  after the header, included in order (or replaced by ``replace[name]``); ``sheet_pieces``,
  those of them that load on their own (``sheets.sections.section`` pieces, in its
  ``views.py``), which also answer the sheet's ``?section=<name>`` and its writes' answers
  (``()``: none);
* ``party_head`` and ``party_cells``: the templates of its party columns, the headers and a
  row's cells (given ``row``, the party row, and ``c``, its character; "": none); and
  ``campaign_sections``, the templates of its sections on the campaign page (``()``: none);
* what it adds to the GM panel (``campaigns.views.panel_page``): ``panel_cards``, the
  ``(name, template)`` of its sections beside the panel's own (a section written in place is
  a ``campaigns.views.panel_section`` piece in its ``views.py``), and ``panel_sections``, those
  below (``()``: none), each included in order, or replaced by ``sections[name]`` (a refused
  plain post's section); ``panel_context(request, campaign, overrides)``, what its sections
  need of the panel's context (``overrides``: a write's answer's, e.g. a refused form);
* what the insight pages (``insights``) ask of it: ``calculator``, the rules page's odds
  calculator (a form of numbers whose ``odds()`` gives {"dice", "chance"}; None: none) and
  ``calculator_template`` (its form, given the values typed as ``v`` and their ``result``);
  ``distribution_caption``, ``rolled(data)`` (what a roll's data says its dice were, as text,
  and showed: (pool, shown), or None; kept with the entry, ``rolls.models.outcome_fields``;
  no ``rolled``: nothing kept), ``rolled_groups(rolls)`` ({pool: Counter of what the roll
  entries showed}, from what ``rolled`` kept; ``{}``: no distributions on the luck page) and
  ``exact_distribution(pool, counts, max_bins=, tail=)`` ((title, what, [(value, exact
  chance)], last, chance of ``last`` or more)); ``export_about(data)`` and
  ``export_rolled(data)`` (what a roll was about, and its (dice, faces, result), as the log
  export writes them); ``drawn(data)``, the draws a roll's shown dice must be, in the order
  they were drawn, ``[1, faces, face]`` each, and ``replay(data, rng)``, what the dice decide
  of the roll rolled again with ``rng``, each field as its data keeps it (``rolls.dice``
  checks a revealed seed's rolls with both; none: the draws alone are checked); the roll takes
  its dice from ``rolls.services.roll_dice``;
* ``urls``: the module path of its URL patterns (``urls.py``; None: none), which
  ``config/urls.py`` includes giving each of their views ``system``, its key, for the view to
  pass to ``campaign_for``/``character_for``: 404 in a campaign of another system, the one gate
  of a system's pages (their views never name the system);
* its templates under ``rolls/systems/<key>/``: ``_roll_fields.html`` (the roll form's fields,
  given the form as ``f``, its odds' URL as ``odds_url`` and the odds' output as
  ``#odds-{{ check.id }}``), ``_odds.html`` (what its odds show after the chance: Mana's pools
  and advisor, Pool's shift costs; given ``odds``), ``_outcome.html`` (a roll's outcome on the
  card), ``_entry_about.html`` and ``_entry.html``
  (what a log entry says was asked and rolled, and its dice), ``_summary_outcome.html`` (a
  roll's outcome in a session's summary), ``_calculator.html`` (its odds calculator, named by
  ``calculator_template``), ``_create_fields.html`` and
  ``_settings_fields.html`` (its campaign settings, named by ``create_template`` and
  ``settings_template``), ``_panel_*.html``, ``_sheet_*.html`` and ``_campaign_*.html`` (its
  GM panel, sheet and campaign page sections), ``_gm_*.html`` (the GM panel sections that load
  on their own, e.g. Pool's approvals, Mana's pools), ``_party_head.html`` and
  ``_party_cells.html``.

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

__all__ = ["SYSTEMS", "register", "register_all", "system_of"]


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
