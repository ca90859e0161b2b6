"""Pool: d6 for the attribute plus d10 for the skill, exploding; the highest die against the TN.
Dice may be shifted aside for a bonus effect the GM agrees to before the roll. The rules and the
odds are in ``rules.pool``; this module is the table's side of them."""

from django import forms
from django.core.exceptions import ValidationError
from django.db.models import prefetch_related_objects

from campaigns.forms import cost_field, hp_field
from core.ids import parse_id
from core.writes import Refused
from rules import advice, pool
from rules import sheet as pool_sheet

from ...forms import (
    INTENT_MAX,
    ROLL_AUTO_ID,
    chosen,
    contribution_field,
    first_error,
)
from ...services import MAX_SPEND
from ..base import RuleSystem
from . import progression, report, services, sheet, views
from .calculator import PoolCalculatorForm
from .models import (
    BONUS_MAX,
    DECLINE_REASON_MAX,
    KEY,
    PROPOSAL_RELATED,
    SETTINGS,
    PoolSettings,
    Rating,
    check_of,
    settings_of,
)


class RowField(forms.Field):
    """One of ``rows`` (model instances read beforehand), by the id a browser sent."""

    def __init__(self, message, **kwargs):
        super().__init__(error_messages={"invalid_choice": message}, **kwargs)
        self.rows = []

    def to_python(self, value):
        if value in self.empty_values:
            return None
        row = next((row for row in self.rows if str(row.pk) == str(value).strip()), None)
        if row is None:
            raise ValidationError(self.error_messages["invalid_choice"], code="invalid_choice")
        return row


class ShiftField(forms.IntegerField):
    """Dice shifted aside: a whole number from 0 to MAX_SPEND (what ``services.pool_dice``
    takes); left blank it is 0."""

    def __init__(self, label):
        super().__init__(label=label, min_value=0, max_value=MAX_SPEND, required=False)

    def clean(self, value):
        return super().clean(value) or 0


class PoolRollForm(forms.Form):
    """A Pool roll: an attribute of the character, optionally one of its skills, the shift.
    Only the ratings sent are read (``ratings``: all of the character's, when known)."""

    attribute = RowField("Choose one of your character's attributes.")
    skill = RowField("Choose one of your character's skills.", required=False)
    shift_d6 = ShiftField("Shift d6")
    shift_d10 = ShiftField("Shift d10")
    bonus_effect = forms.CharField(label="Bonus effect", max_length=BONUS_MAX, required=False)
    intent = forms.CharField(label="What you try", max_length=INTENT_MAX, required=False)
    contribution = contribution_field()

    def __init__(self, data, *, character, ratings=None, **kwargs):
        super().__init__(data, **kwargs)
        if ratings is None:
            sent = [self[name].value() for name in ("attribute", "skill")]
            ids = [i for i in map(parse_id, sent) if i is not None]
            ratings = []
            if ids:  # in no order: the fields find them by id (ordered, the read costs more)
                ratings = list(Rating.objects.filter(character=character, pk__in=ids).order_by())
        self.fields["attribute"].rows = [r for r in ratings if r.is_attribute]
        self.fields["skill"].rows = [r for r in ratings if not r.is_attribute]


class Pool(RuleSystem):
    key = KEY
    name = "Pool"
    summary = (
        "checks of an attribute's d6 plus a skill's d10, rolled again on their highest face; "
        "the highest die against a TN; sparetime raises the ratings"
    )
    #: What it adds to a character's sheet and the party (``sheet.py``).
    sheet = sheet
    #: Its URLs (``config/urls.py`` includes them, gated to its campaigns; the sparetime
    #: ledger's are the ``sparetime`` app's).
    urls = "rolls.systems.pool.urls"
    number = "TN"
    any_choice = "any attribute"
    #: Its row of a check (what it binds, a shift), read along with the check; and the
    #: ratings of a shift, read along with its card.
    check_related = ("pool_check",)
    card_related = PROPOSAL_RELATED
    #: What an open check's card says above its roll form: a shift the GM declined, and why.
    open_check_note = "rolls/systems/pool/_declined.html"
    #: The rules page's odds calculator (``insights``): its form and its template (given the
    #: values typed as ``v`` and the chance they have as ``result``).
    calculator = PoolCalculatorForm
    calculator_template = "rolls/systems/pool/_calculator.html"
    #: What the luck page's distributions of the dice show (``rolled_groups``).
    distribution_caption = "The highest total per pool"

    # The luck page's distributions (of what ``rolled`` keeps, the pool's "<d6>+<d10>") and
    # the export's words: this system's ``report``.
    rolled = staticmethod(services.rolled)
    exact_distribution = staticmethod(report.exact_distribution)
    export_about = staticmethod(report.export_about)
    export_rolled = staticmethod(report.export_rolled)
    drawn = staticmethod(report.drawn)
    replay = staticmethod(report.replay)

    def rolled_pool(self, text):
        """A pool's ``(d6, d10)``, from the "<d6>+<d10>" ``rolled`` kept."""
        d6, d10 = text.split("+")
        return int(d6), int(d10)

    def suggestions(self):
        """Every attribute and listed skill of the sheet, offered while typing a suggestion."""
        return [n for a in pool_sheet.ATTRIBUTES for n in (a, *pool_sheet.fixed_skills(a))]

    def roll_form(self, check, data, *, ratings=None):
        """The bound form, validated here, where its fields are (what it sent is read once:
        its errors and cleaned data are kept): the view and the roll share its cleaned data."""
        form = PoolRollForm(
            data,
            character=check.character,
            ratings=ratings,
            auto_id=ROLL_AUTO_ID.format(check.pk or "npc"),
        )
        form.is_valid()
        return form

    def roll_context(self, check, *, form=None, changed=None):
        """The roll form's choices, values and live odds. ``form`` is bound to what the player
        sent; without it the form starts from ``changed`` (the values sent when the player
        picked another attribute) or from the check's suggestion. What the check asks for
        (``asked_attribute``, ``asked_skill``) is the only choice offered, fixed."""
        own = check_of(check)
        ratings = _offered(own, Rating.objects.filter(character=check.character))
        attributes = [r for r in ratings if r.is_attribute]
        if not attributes:
            return {"attributes": []}
        if form is None:
            form = self.roll_form(check, _first_values(check, ratings, changed), ratings=ratings)
        attribute = chosen(attributes, form["attribute"].value()) or attributes[0]
        skills = [r for r in ratings if _skill_of(r, attribute)]
        skill = chosen(skills, form["skill"].value())
        if own.asked_skill:
            skill = skills[0] if skills else None
        return {
            "form": form,
            "attributes": attributes,
            "attribute": attribute,
            "fixed_attribute": bool(own.asked_attribute),
            "fixed_skill": bool(own.asked_skill),
            "skills": skills,
            "skill": skill,
            "inputs": [form["shift_d6"], form["shift_d10"]],
            "shifted": any(_sent_number(form[n].value()) for n in ("shift_d6", "shift_d10")),
            # The roll button's words while dice are shifted (its inputs marked data-shifts).
            "shift_label": "Propose shift",
            "odds": self.odds(check, form),
        }

    def odds(self, check, form):
        """The odds of what ``form`` holds: what it sent is all they need."""
        if not form.is_valid():
            return {"error": first_error(form)}
        data = form.cleaned_data
        try:
            services.pool_asked_require(check, data["attribute"], data["skill"])
        except Refused as refusal:
            return {"error": str(refusal)}
        odds = _preview(
            check,
            attribute=data["attribute"],
            skill=data["skill"],
            shift_d6=data["shift_d6"],
            shift_d10=data["shift_d10"],
        )
        if (data["shift_d6"] or data["shift_d10"]) and "error" not in odds:
            if data["bonus_effect"].strip():
                odds["hint"] = "The GM agrees to the shift (or not) before the dice are rolled."
            else:
                odds["hint"] = "Name the bonus effect the shifted dice are for."
        return odds

    #: The roll (``services.roll``, called straight from the view's write).
    roll = staticmethod(services.roll)
    # A roll changes none of its character's facts (a shift spends nothing): roll_facts None.

    def roll_npc(self, check, *, by, data):
        """The GM's roll for an NPC: a shift is the GM's own, rolled at once (approved)."""
        entry = self.roll(check, by=by, data=data)
        if check.status == check.SHIFT:
            dice = data.get("contribution", "")
            entry = services.check_answer_shift(check=check, approve=True, contribution=dice)
        return entry

    def check_fill(self, check, *, suggestion=""):
        """A new check's own row: the attribute (and skill) of the sheet its suggestion names,
        which the roll must use."""
        services.check_fill(check, suggestion=suggestion)

    def npc_asked(self, data):
        """What the GM's NPC roll (its roll form's cleaned ``data``) asks: the ratings chosen."""
        chosen = [data.get("attribute"), data.get("skill")]
        return {"suggestion": " + ".join(rating.label for rating in chosen if rating)}

    def asked(self, check):
        return services.pool_asked(check)

    def saved_check_fields(self, character):
        """An attribute, and one of the character's approved skills or none. Its ratings are
        read into the character's cache, where the sheet's Pool section finds them: one read
        for both (``character.ratings.all()``)."""
        prefetch_related_objects([character], "ratings")
        skills = [
            (str(r.pk), f"{r.skill} ({r.attribute})")
            for r in character.ratings.all()
            if r.is_approved and not r.is_attribute
        ]
        return (
            {"name": "attribute", "label": "Attribute", "options": Rating.ATTRIBUTE_CHOICES},
            {"name": "skill", "label": "Skill", "options": [("", "— none —"), *skills]},
        )

    def saved_check_clean(self, character, data):
        """The attribute and skill by name (a rating's row may be raised, never renamed)."""
        attribute = str(data.get("attribute") or "")
        if attribute not in pool_sheet.ATTRIBUTES:
            raise Refused("Choose one of the attributes.")
        skill = ""
        skill_id = parse_id(str(data.get("skill") or ""))
        if data.get("skill"):
            rating = Rating.objects.filter(character=character, pk=skill_id).first()
            if rating is None or rating.is_attribute or not rating.is_approved:
                raise Refused("Choose one of the character's approved skills, or none.")
            if rating.attribute != attribute:
                raise Refused(f"{rating.skill} is a skill of {rating.attribute}, not {attribute}.")
            skill = rating.skill
        text = f"{attribute} + {skill}" if skill else attribute
        return {"attribute": attribute, "skill": skill, "text": text}

    def saved_check_data(self, character, choices):
        """The ratings the kept names are now (none found: the roll form says what is missing)."""
        names = [(choices.get("attribute"), ""), (choices.get("attribute"), choices.get("skill"))]
        rows = {
            (r.attribute, r.skill): r.pk
            for r in Rating.objects.filter(
                character=character, attribute=choices.get("attribute", "")
            )
        }
        # A rating gone is sent as no id at all: the form refuses it, naming the field.
        attribute, skill = (rows.get(name, "gone") for name in names)
        return {"attribute": attribute, "skill": skill if choices.get("skill") else ""}

    #: The GM's answer to a shift (``room.views.check_answer_shift``).
    answer_shift = staticmethod(services.check_answer_shift)

    def proposal(self, check):
        """What the shift awaiting the GM would roll, and its chance (and what its card shows:
        the proposal as ``own``, how long a reason to decline it may be)."""
        own = check_of(check)
        preview = _preview(
            check,
            attribute=own.attribute,
            skill=own.skill,
            shift_d6=own.shift_d6,
            shift_d10=own.shift_d10,
        )
        return {**preview, "own": own, "reason_max": DECLINE_REASON_MAX}

    # What it adds to a character's sheet, after its header: its section (its context:
    # ``sheet.section_context``), which loads on its own (``views.POOL``), and the
    # character's sparetime, which the sparetime app loads.
    sheet_sections = (
        (views.POOL.name, views.POOL.template),
        ("sparetime", "rolls/systems/pool/_sheet_sparetime.html"),
    )
    sheet_pieces = (views.POOL,)

    # Its party columns (their values: ``sheet.party_row``) and the campaign page's section: a
    # player's sparetime delegation.
    party_head = "rolls/systems/pool/_party_head.html"
    party_cells = "rolls/systems/pool/_party_cells.html"
    campaign_sections = ("rolls/systems/pool/_campaign_delegation.html",)

    # What it adds to the GM panel: the custom-skill approvals and the sparetime ledger, below
    # the panel's own cards; they load on their own, so the panel's context has nothing of theirs.
    panel_sections = (
        ("approvals", "rolls/systems/pool/_panel_approvals.html"),
        ("gm-sparetime", "rolls/systems/pool/_panel_sparetime.html"),
    )
    gm_pieces = (views.APPROVALS,)

    # The campaign's settings: what sparetime buys and the hit points.
    create_template = "rolls/systems/pool/_create_fields.html"
    settings_template = "rolls/systems/pool/_settings_fields.html"
    settings_keys = SETTINGS

    #: Its settings' row, read along with the campaign (``campaigns.access``).
    campaign_related = ("pool_settings",)
    #: Its row of a character (its HP), read along with it (``character_for``, a check's
    #: character, the NPC roll's choice; its ratings are read apart).
    character_related = ("pool_sheet",)

    # Hit points changed from the room's party (``room.views.party_hp``): the GM's, and a
    # player's of their own characters when the campaign allows it.
    hp_change = staticmethod(services.hp_change)

    def hp_may_change(self, campaign, character):
        viewer = campaign.viewer
        if viewer.is_gm:
            return True
        own = character.owner_id is not None and character.owner_id == viewer.user_id
        return own and settings_of(campaign).players_change_hp

    def campaign_fill(self, campaign, **settings):
        """A new campaign has nothing of Pool's but its settings."""
        services.campaign_fill(campaign=campaign, **settings)

    def settings_update(self, campaign, **settings):
        services.settings_update(campaign=campaign, **settings)

    def create_fields(self):
        return _settings_fields({f: PoolSettings._meta.get_field(f).default for f in SETTINGS})

    def settings_fields(self, campaign):
        row = settings_of(campaign)
        return _settings_fields({f: getattr(row, f) for f in SETTINGS})

    # What it adds to the room's session panel and to a session's summary: the sparetime
    # award once a session ended, and what was awarded for it (the ledger's answers:
    # ``progression.py``).
    session_template = "rolls/systems/pool/_session_award.html"
    session_context = staticmethod(progression.session_context)
    summary_template = "rolls/systems/pool/_summary_awards.html"
    summary_context = staticmethod(progression.summary_context)


def _settings_fields(initial):
    """The settings' fields, starting from ``initial`` (by field name)."""
    return {
        "attribute_cost": cost_field(
            "Sparetime per attribute point", initial=initial["attribute_cost"]
        ),
        "skill_cost": cost_field("Sparetime per skill point", initial=initial["skill_cost"]),
        "hp_base": hp_field("HP base", initial=initial["hp_base"]),
        "hp_per_endurance": hp_field("HP per Endurance point", initial=initial["hp_per_endurance"]),
        "players_change_hp": forms.BooleanField(
            label="Players may change their own characters' HP in the room",
            required=False,
            initial=initial["players_change_hp"],
        ),
    }


def _sent_number(value):
    """A number the browser sent, or 0 if it is none."""
    try:
        return int(value)
    except (TypeError, ValueError):
        return 0


def _offered(own, ratings):
    """The ratings a roll of a check (``own``: its Pool row) may use: the attribute and skill
    it asks for, if it does."""
    ratings = list(ratings)
    if own.asked_attribute:
        ratings = [r for r in ratings if r.attribute == own.asked_attribute]
    if own.asked_skill:
        ratings = [r for r in ratings if r.skill in ("", own.asked_skill)]
    return ratings


def _skill_of(rating, attribute):
    """Whether ``rating`` is a rollable skill of the attribute rating ``attribute``."""
    same = rating.attribute == attribute.attribute
    return same and rating.is_approved and not rating.is_attribute


def _first_values(check, ratings, changed):
    """The roll form's first values: the picked attribute (else the one chosen before or named
    by the suggestion), its skill if still one of it (the one asked, if the check asks one),
    the shift and the texts."""
    attributes = [r for r in ratings if r.is_attribute]
    if changed:
        attribute = chosen(attributes, changed.get("attribute")) or attributes[0]
        skill = chosen([r for r in ratings if _skill_of(r, attribute)], changed.get("skill"))
    else:
        attribute, skill = _suggested(check, ratings, attributes)
        changed = {}
    if check_of(check).asked_skill:  # the ratings offered hold that skill alone
        skill = next((r for r in ratings if _skill_of(r, attribute)), None)
    return {
        "attribute": attribute.pk,
        "skill": skill.pk if skill else "",
        "shift_d6": changed.get("shift_d6", 0),
        "shift_d10": changed.get("shift_d10", 0),
        "bonus_effect": changed.get("bonus_effect", ""),
        "intent": changed.get("intent", check.intent),
    }


def _suggested(check, ratings, attributes):
    """(attribute, skill) chosen before on this check (a shift it proposed), else named by its
    suggestion (the longest name found in it), else the first attribute alone."""
    own = check_of(check)
    if own.attribute_id:
        attribute = chosen(attributes, own.attribute_id)
        if attribute:
            skill = chosen([r for r in ratings if _skill_of(r, attribute)], own.skill_id)
            return attribute, skill
    text = check.suggestion.casefold()
    named = [r for r in ratings if r.is_approved and text and r.label.casefold() in text]
    if not named:
        return attributes[0], None
    best = max(named, key=lambda r: len(r.label))
    attribute = next(a for a in attributes if a.attribute == best.attribute)
    return attribute, None if best.is_attribute else best


def _dice_text(d6, d10):
    return " + ".join(f"{n}{die}" for n, die in ((d6, "d6"), (d10, "d10")) if n)


def _preview(check, *, attribute, skill, shift_d6, shift_d10):
    """The dice a Pool choice rolls ("3d6 + 2d10 (2d6 shifted)") and the chance, or why not."""
    try:
        d6, d10 = services.pool_dice(
            check=check, attribute=attribute, skill=skill, shift_d6=shift_d6, shift_d10=shift_d10
        )
    except Refused as refusal:
        return {"error": str(refusal)}
    dice = _dice_text(d6, d10)
    if shift_d6 or shift_d10:
        dice += f" ({_dice_text(shift_d6, shift_d10)} shifted)"
    return {
        "dice": dice,
        "chance": pool.success_probability(d6, d10, check.target),
        "shift_costs": advice.pool_shift_costs(d6, d10, check.target),
    }


SYSTEM = Pool()
