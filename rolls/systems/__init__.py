"""The rule systems a campaign plays, each behind one interface.

``system_of(campaign)`` returns the system of ``campaign``: an object with

* ``key`` (``Campaign.system``), ``number`` (what a check's target is called), ``any_choice``
  (what an open choice is called) and ``about_field`` (the field of the ask and request forms
  that says what a check is about);
* ``card_related``: what a check's card reads along (``select_related``);
* ``suggestions()``: names offered while typing what a check is about;
* ``roll_context(check, form=None, changed=None)``: the roll form of an open check, its choices
  and its live odds; ``roll_form(check, data)``: the bound form; ``odds(check, form)``: the odds
  of what the form holds, or why it would be refused;
* ``roll(check, by, data)``: the roll itself (the ``rolls.services`` write), from the form's
  cleaned data; it refuses anything but what the check asks for, when it asks for something;
* ``asked(check)``: what the check asks to roll, as text ("" for any: the player chooses);
* ``proposal(check)``: what a shift awaiting the GM would roll (systems without shifts: None);
* ``closed_by_gm(check, last_roll)``: whether a done check was closed without a success;
* its templates under ``rolls/systems/<key>/``: ``_roll_fields.html`` (the roll form's fields),
  ``_outcome.html`` (a roll's outcome on the card), ``_entry_about.html`` and ``_entry.html``
  (what a log entry says was asked and rolled, and its dice).

A third system is one more module here and its templates.
"""

from . import mana, pool

SYSTEMS = {system.key: system for system in (mana.SYSTEM, pool.SYSTEM)}


def system_of(campaign):
    return SYSTEMS[campaign.system]
