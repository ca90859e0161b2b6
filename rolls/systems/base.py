"""What a rule system is: ``RuleSystem``, every member of the interface a campaign's system
offers (``campaigns.systems.system_of``), with its default and what it means; and ``Sheet``,
what it adds to a character (its ``sheet``), with theirs. A system subclasses it and writes only
what differs; ``rolls.systems.register`` refuses, at start-up, one that misses what it must give
(``REQUIRED``), names a template that is not there, or whose key the column cannot hold."""

from collections import Counter

from django.db.models import Count

from core.writes import Refused


class Sheet:
    """What a system adds to a character (a system's ``sheet``: Pool's and Mana's are their
    ``sheet.py`` module, which has these five). The defaults: nothing of its own."""

    #: The members a system's ``sheet`` must have (``rolls.systems.register`` checks them).
    MEMBERS = ("character_fill", "party_characters", "party_row", "section_context", "export")

    @staticmethod
    def character_fill(character):
        """A new character's own rows (e.g. Pool's ratings and HP). Default: none."""

    @staticmethod
    def party_characters(campaign, characters):
        """The party's characters, read along with what the party's rows need of them.
        Default: ``characters`` as they are."""
        return characters

    @staticmethod
    def party_row(campaign, character, private):
        """What a party row shows of ``character`` besides its name (``party_cells`` is given
        it as ``row``); ``private``: the viewer may see its private facts. Default: ``{}``."""
        return {}

    @staticmethod
    def section_context(campaign, character, section, *, private):
        """The context of its sheet sections: ``section`` one's, or None for the whole sheet.
        Default: ``{}``."""
        return {}

    @staticmethod
    def export(character):
        """What the sheet holds of ``character`` beyond its name, concept and history, as JSON's
        values, for its player's own data to take home (``insights.views.my_data``). Default:
        ``{}``."""
        return {}


class RuleSystem:
    """A rule system a campaign plays (``Campaign.system`` is its ``key``).

    Its templates are in its folder, ``rolls/systems/<key>/`` (in its package,
    ``templates/rolls/systems/<key>/``), which ``template(name)`` names. The pages include
    ``FIXED_TEMPLATES`` from it by its key (``SHIFT_TEMPLATES`` too, when it has shifts); every
    other is named by its members (``*_template``, ``sheet_sections``, ``sheet_pieces``,
    ``panel_cards``, ``panel_sections``, ``gm_pieces``, ``campaign_sections``, ``party_head``,
    ``party_cells``, ``open_check_note``), and ``rolls.systems.templates`` lists them all for
    registration to check. Their names, by custom: ``_calculator.html`` (its odds calculator),
    ``_create_fields.html`` and ``_settings_fields.html`` (its campaign settings),
    ``_panel_*.html``, ``_sheet_*.html`` and ``_campaign_*.html`` (its GM panel, sheet and
    campaign page sections), ``_gm_*.html`` (the GM panel sections that load on their own),
    ``_party_head.html`` and ``_party_cells.html``.

    A member whose default is None or raises NotImplementedError and that is named in
    ``REQUIRED`` is one each system must give: registration refuses a system without it.
    """

    #: The templates every system has under ``rolls/systems/<key>/``, included by that name:
    #: ``_roll_fields.html`` (the roll form's fields, given the form as ``f``, its odds' URL as
    #: ``odds_url`` and the odds' output as ``#odds-{{ check.id }}``), ``_odds.html`` (what its
    #: odds show after the chance: Mana's pools and advisor, Pool's shift costs; given
    #: ``odds``), ``_outcome.html`` (a roll's outcome on the card), ``_entry_about.html`` and
    #: ``_entry.html`` (what a log entry says was asked and rolled, and its dice),
    #: ``_summary_outcome.html`` (a roll's outcome in a session's summary).
    FIXED_TEMPLATES = (
        "_roll_fields.html",
        "_odds.html",
        "_outcome.html",
        "_entry_about.html",
        "_entry.html",
        "_summary_outcome.html",
    )

    #: Those the pages include by its key when it has shifts (``answer_shift``):
    #: ``_shift.html``, the card of a check awaiting the GM's answer (given ``proposal``).
    SHIFT_TEMPLATES = ("_shift.html",)

    #: What every system must give (attributes left None here, methods raising
    #: NotImplementedError); ``rolls.systems.register`` refuses a system missing one.
    REQUIRED = (
        "key",
        "name",
        "summary",
        "number",
        "any_choice",
        "roll_form",
        "roll_context",
        "odds",
        "roll",
        "asked",
        "export_rolled",
    )

    # -- What it is called -----------------------------------------------------------------

    #: Its key, ``Campaign.system``: a readable slug the column holds (``[a-z][a-z0-9_-]*``,
    #: at most ``Campaign.system``'s ``max_length``), also the folder of its templates.
    key = None
    #: Its name, as the pages say it.
    name = None
    #: What it plays like, in a sentence: the new-campaign form says it under the choice.
    summary = None
    #: What a check's target is called (Pool: "TN").
    number = None
    #: What an open choice is called (e.g. "any attribute").
    any_choice = None

    def template(self, name):
        """The template ``name`` of its folder, ``rolls/systems/<key>/<name>``: where the pages
        include ``FIXED_TEMPLATES`` from (``"rolls/systems/"|add:key|add:"/<name>"``, the key
        of the system or of a roll's data)."""
        return f"rolls/systems/{self.key}/{name}"

    def fixed_templates(self):
        """The templates the pages include by its key: ``FIXED_TEMPLATES``, and
        ``SHIFT_TEMPLATES`` when it has shifts, each in its folder."""
        shift = self.SHIFT_TEMPLATES if self.answer_shift else ()
        return [self.template(name) for name in (*self.FIXED_TEMPLATES, *shift)]

    # -- A check ----------------------------------------------------------------------------

    #: The name of the field of the ask and request forms that says what a check is about
    #: (``about_form_field``); the check's ``check_fill`` is given it.
    about_field = "suggestion"
    #: Its own row of a check (a ``OneToOneField`` to ``Check``: what the check binds the roll
    #: to, e.g. Mana's skill, and what else it keeps, Pool's shift), which
    #: ``Check.objects.of`` reads along with the check (``select_related``; ``()``: none).
    check_related = ()
    #: What a check's card reads along besides (e.g. a Pool shift's ratings; ``()``: none).
    card_related = ()
    #: The template of what an open check's card says above its roll form (Pool: a declined
    #: shift; "": nothing).
    open_check_note = ""
    #: What a roll changes of its character's facts (``"private"``: Mana's pools;
    #: ``"public"``; None: nothing), which the roll's pushes tell the pages showing them
    #: (``room.views._check_write`` pushes them before the card).
    roll_facts = None
    #: The GM's answer to a shift awaiting it, the write, ``answer_shift(check=, approve=,
    #: reason=)`` (None: no shifts). With shifts, the card of a check awaiting the answer is
    #: its ``_shift.html`` (``SHIFT_TEMPLATES``, given ``proposal``).
    answer_shift = None

    def about_form_field(self, campaign):
        """The field of the ask and request forms named ``about_field``. Default: a typed
        suggestion, ``rolls.forms.suggestion_field()``."""
        from rolls.forms import suggestion_field

        return suggestion_field()

    def suggestions(self):
        """Names offered while typing what a check is about. Default: none."""
        return ()

    def check_fill(self, check, **about):
        """Its own row of a new check, given what it is about (``rolls.services.check_ask``'s
        ``about``: ``{about_field: value}``; the check itself keeps the ``suggestion``, if
        there is one): Mana's ``ManaCheck``, Pool's ``PoolCheck``. Default: nothing."""

    def roll_context(self, check, *, form=None, changed=None):
        """The roll form of an open check (``form``; none when there is nothing to roll, which
        its ``_roll_fields.html`` says), its choices and its live odds (``odds``). ``form``:
        bound to what the player sent; without it, from ``changed`` (the values sent when the
        player changed a choice) or the check. Required."""
        raise NotImplementedError(f"{type(self).__name__} gives no roll_context")

    def roll_form(self, check, data):
        """The bound roll form (an ``intent`` field among its fields; validated already,
        where its fields are, so that the view and the roll share its cleaned data). Required."""
        raise NotImplementedError(f"{type(self).__name__} gives no roll_form")

    def odds(self, check, form):
        """The odds of what the roll form holds (``{"dice", "chance"}``), or why it would be
        refused (``{"error"}``). Required."""
        raise NotImplementedError(f"{type(self).__name__} gives no odds")

    def roll(self, check, *, by, data):
        """The roll itself, the write (Pool's and Mana's: their ``services.roll``, called
        straight from the view's write), from the form's cleaned ``data``; it refuses anything
        but what the check asks for, when it asks for something; its entry's data keeps the
        roll's chance as ``rules.odds.as_text`` writes it (``chance``), which the insights read
        back with ``rules.odds.read``. Its dice come from ``rolls.services.roll_dice``.
        Required."""
        raise NotImplementedError(f"{type(self).__name__} gives no roll")

    def npc_asked(self, data):
        """What the GM's one-step NPC roll (its roll form's cleaned ``data``) asks, as the new
        check's ``about`` (``check_fill``). Default: ``{}``."""
        return {}

    def roll_npc(self, check, *, by, data):
        """The GM's one-step NPC roll of ``check``. Default: ``roll`` (Pool: a shift is the
        GM's own, approved at once)."""
        return self.roll(check, by=by, data=data)

    def asked(self, check):
        """What the check asks to roll, as text ("" for any: the player chooses). Required."""
        raise NotImplementedError(f"{type(self).__name__} gives no asked")

    def proposal(self, check):
        """What a shift awaiting the GM would roll (its card's context). Default: None (no
        shifts)."""
        return None

    def closed_by_gm(self, check, last_roll):
        """Whether a done check was closed without a success. Default: a done check without
        a roll was cancelled by the GM."""
        return last_roll is None

    # -- Saved rolls (``sheets.models.SavedRoll``) -------------------------------------------
    # A character's saved check keeps the choices of its system's roll form as JSON: the sheet's
    # form asks for them (``saved_check_fields``), the system checks and keeps them
    # (``saved_check_clean``), and a click rolls them through the roll form
    # (``saved_check_data``, then ``roll_form`` and ``npc_asked`` as for the GM's NPC roll).

    def saved_check_fields(self, character):
        """The choices a saved check of ``character`` keeps, for the sheet's form, each a dict:
        ``{"name", "label", "options": [(value, text)]}`` (one of them; a value of "" is
        "none") or ``{"name", "label", "min", "max"}`` (a whole number). Default: ``()``, no
        saved checks: the sheet saves dice notation only."""
        return ()

    def saved_check_clean(self, character, data):
        """The choices of a saved check of ``character`` in ``data`` (what the sheet's form
        sent, by ``saved_check_fields``' names), as the JSON to keep, with ``"text"``: what it
        rolls, in words, which the sheet and the room show; or ``core.writes.Refused`` with
        why. Default: refused (no saved checks)."""
        raise Refused(f"{self.name} saves no checks here: save dice notation instead.")

    def saved_check_data(self, character, choices):
        """The data of its roll form (``roll_form``) that rolls the kept ``choices`` of
        ``character`` now. Default: ``{}``."""
        return {}

    # -- The campaign's settings ------------------------------------------------------------
    # In the create form and the GM panel's settings form (``campaigns.forms``; field names
    # unique across systems, the create form holds every system's).

    #: The template of ``create_fields()`` (given them as ``fields``; read only when there are
    #: fields): the create page wraps it in the system's ``fieldset[data-system]``.
    create_template = ""
    #: The template of ``settings_fields()`` (given them as ``fields``; read only when there
    #: are fields), which holds its own fieldset.
    settings_template = ""
    #: What of the cleaned settings ``campaigns.services.campaign_settings_update`` takes and
    #: gives to ``settings_update`` (``()``: none).
    settings_keys = ()
    #: The names of its own rows of a campaign (its settings' model, a ``OneToOneField`` to
    #: ``Campaign``) that ``campaigns.access`` reads along with the campaign
    #: (``select_related``; ``()``: none).
    campaign_related = ()
    #: Those of a character (Mana's traits, Pool's HP), which ``sheets.access.character_for``,
    #: ``Check.objects.of`` and the NPC roll's choice read along with it (``()``: none).
    character_related = ()

    def create_fields(self):
        """The create form's fields by name. Default: ``{}`` (none)."""
        return {}

    def settings_fields(self, campaign):
        """The settings form's fields by name. Default: ``{}`` (none)."""
        return {}

    def clean_create(self, form, cleaned):
        """Called from the create form's ``clean`` for the chosen system; may change
        ``cleaned``, ``form.add_error`` or raise ValidationError. Default: nothing."""

    def clean_settings(self, form, cleaned):
        """Called from the settings form's ``clean`` for the campaign's system; as
        ``clean_create``. Default: nothing."""

    def campaign_fill(self, campaign, **settings):
        """Its part of a new campaign, given ``create_fields()``' cleaned data (e.g. Mana's
        palette and skills; ``campaigns.services.campaign_create``). Default: nothing."""

    def settings_update(self, campaign, **settings):
        """Its write of the settings ``settings_keys`` names. Default: nothing."""

    # -- Hit points, changed from the room's party ------------------------------------------

    #: The write of a character's current hit points from the room (``room.views.party_hp``):
    #: ``hp_change(character=, by=, value=)`` (or ``step=``, -1 or +1, from the HP it has
    #: under the write's lock), one transaction that refuses a value out of its range
    #: (``core.writes.Refused``) and appends its ``LogEntry.HP`` entry (data: ``name``,
    #: ``before``, ``after``; public, but GM-only for the GM's own characters, whom players do
    #: not see), which it returns for the room to push. None: the system has no hit points
    #: (the party shows no controls; the room's URL answers 404).
    hp_change = None

    def hp_may_change(self, campaign, character):
        """Whether the viewer of ``campaign`` may change ``character``'s hit points from the
        room (what the party offers; the room's write refuses others with 403). Default: no
        one (a system without hit points)."""
        return False

    # -- The room's session panel and a session's summary -----------------------------------

    #: What it adds to the room's session panel ("": nothing), given ``session_context``.
    session_template = ""
    #: What it adds to a session's summary ("": nothing), given ``summary_context``.
    summary_template = ""

    def session_context(self, campaign, last, **overrides):
        """The context of ``session_template`` (``last`` the latest session; ``overrides`` a
        write's answer's, ``room.views.session_answer``): Pool's sparetime award once a
        session ended. Read only when there is a template. Default: ``{}``."""
        return {}

    def summary_context(self, campaign, session):
        """The context of ``summary_template``: Pool's sparetime awarded for it. Read only
        when there is a template. Default: ``{}``."""
        return {}

    # -- A character's sheet, the party, the campaign page ----------------------------------

    #: What it adds to a character (a ``Sheet``: its members, ``Sheet.MEMBERS``; Pool's and
    #: Mana's, their ``sheet.py``). Default: nothing of its own.
    sheet = Sheet
    #: The ``(name, template)`` of its sections on the sheet page after the header, included
    #: in order (or replaced by ``replace[name]``; ``()``: none).
    sheet_sections = ()
    #: Those of them that load on their own (``sheets.sections.section`` pieces, in its
    #: ``views.py``), which also answer the sheet's ``?section=<name>`` and its writes'
    #: answers (``()``: none).
    sheet_pieces = ()
    #: The templates of its party columns, the headers and a row's cells (given ``row``, the
    #: party row, and ``c``, its character; "": none).
    party_head = ""
    party_cells = ""
    #: The templates of its sections on the campaign page (``()``: none).
    campaign_sections = ()

    # -- The GM panel (``campaigns.views.panel_page``) ---------------------------------------

    #: The ``(name, template)`` of its sections beside the panel's own (a section written in
    #: place is a ``campaigns.views.panel_section`` piece in its ``views.py``), each included
    #: in order, or replaced by ``sections[name]`` (a refused plain post's section; ``()``:
    #: none).
    panel_cards = ()
    #: Those below the panel's own, as ``panel_cards`` (``()``: none).
    panel_sections = ()
    #: Its GM panel sections that load on their own (``core.writes.Piece`` objects made by
    #: ``scaffold.gm_piece``: Pool's approvals, Mana's pools), each loaded by its
    #: ``panel_sections``' template and answering its own URL and writes; registration checks
    #: their templates as those it names (``()``: none).
    gm_pieces = ()

    def panel_context(self, request, campaign, overrides):
        """What its sections need of the panel's context (``overrides``: a write's answer's,
        e.g. a refused form). Default: ``{}``."""
        return {}

    # -- The insight pages (``insights``) and the log's checks ------------------------------

    #: The rules page's odds calculator: a form of numbers whose ``odds()`` gives
    #: ``{"dice", "chance"}`` (None: none).
    calculator = None
    #: Its form's template (given the values typed as ``v`` and their ``result``); required
    #: with a calculator.
    calculator_template = ""
    #: What the luck page's distributions of its dice show (``rolled_groups``).
    distribution_caption = ""
    #: ``rolled(data)``: what a roll's data says its dice were, as text, and showed:
    #: ``(pool, shown)``, or None; kept with the entry (``rolls.models.outcome_fields``).
    #: None: nothing kept.
    rolled = None
    #: ``drawn(data)``: the draws a roll's shown dice must be, in the order they were drawn,
    #: ``[1, faces, face]`` each (``rolls.dice`` checks a revealed seed's rolls with it).
    #: None: this system's rolls have no draws to check beyond the seed's own.
    drawn = None
    #: ``replay(data, rng)``: what the dice decide of the roll rolled again with ``rng``, each
    #: field as its data keeps it (``rolls.dice`` compares them). None: this system's rolls
    #: are not replayed; the draws alone are checked.
    replay = None

    def rolled_pool(self, text):
        """The key of ``rolled_groups`` of a pool as ``rolled`` kept it (its text): what
        ``exact_distribution`` is given (Pool's ``(d6, d10)``, Mana's number of dice). Default:
        the text."""
        return text

    def rolled_groups(self, rolls):
        """``{pool: Counter of what the roll entries showed}`` over ``rolls`` (roll entries),
        counted by the database from what ``rolled`` kept of each (``LogEntry.pool`` and
        ``shown``), each pool keyed by ``rolled_pool``. Default: so, with a ``rolled``;
        without one, ``{}``: no distributions on the luck page."""
        if self.rolled is None:
            return {}
        groups = {}
        counted = rolls.exclude(pool="").values_list("pool", "shown").annotate(n=Count("id"))
        for pool, shown, n in counted.order_by():
            groups.setdefault(self.rolled_pool(pool), Counter())[shown] += n
        return groups

    def exact_distribution(self, pool, counts, *, max_bins, tail):
        """``(title, what, [(value, exact chance)], last, chance of last or more)`` of a pool
        of ``rolled_groups``. Required when ``rolled_groups`` gives any (a system with a
        ``rolled``, or its own ``rolled_groups``)."""
        raise NotImplementedError(f"{type(self).__name__} gives no exact_distribution")

    def export_about(self, data):
        """What a roll was about, as the log export writes it. Default: ""."""
        return ""

    def export_rolled(self, data):
        """A roll's ``(dice, faces, result)``, as the log export writes them. Required."""
        raise NotImplementedError(f"{type(self).__name__} gives no export_rolled")

    # -- Its pages ----------------------------------------------------------------------------

    #: The module path of its URL patterns (``urls.py``; None: none), which ``config/urls.py``
    #: includes giving each of their views ``system``, its key, for the view to pass to
    #: ``campaign_for``/``character_for``: 404 in a campaign of another system, the one gate
    #: of a system's pages (their views never name the system).
    urls = None
