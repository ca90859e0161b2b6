"""Mana: mana of a skill's two colors (and colorless) buys d10s; 8-9 is a success, a 10 two.
The rules and the odds are in ``rules.mana``; this module is the table's side of them."""

from fractions import Fraction

from django import forms
from django.core.exceptions import ValidationError
from django.db.models import prefetch_related_objects

from core.ids import parse_id
from core.text import isolated
from core.writes import Refused
from rules import advice, mana

from ...forms import INTENT_MAX, ROLL_AUTO_ID, choice, chosen, contribution_field, first_error
from ...models import LogEntry
from ...services import MAX_SPEND
from ..base import RuleSystem
from . import report, services, sheet, views
from .calculator import ManaCalculatorForm
from .forms import (
    ManaSkillForm,
    PaletteField,
    add_colors_field,
    color_field,
    parse_skills,
    renamed_palette,
    skills_field,
    split_colors,
)
from .models import COLORLESS, ManaPool, ManaSkill, check_of, has_trait, palette_of

#: Rows of the mana advisor's table (the cheapest spends; the wanted chance looks at all).
ADVICE_ROWS = 8
#: The chance the advisor looks for until the player types another, in percent.
WANT_DEFAULT = 75


class SpendField(forms.IntegerField):
    """Mana spent of one color: a whole number from 0 to MAX_SPEND (what
    ``services.check_roll_mana`` takes); left blank it is 0."""

    def __init__(self, label):
        super().__init__(label=label, min_value=0, max_value=MAX_SPEND, required=False)

    def clean(self, value):
        return super().clean(value) or 0


class ManaRollForm(forms.Form):
    """A Mana roll: the skill, mana of its two colors and colorless, and the intent.

    ``color_a``/``color_b`` name the colors the amounts were typed for; they must be the chosen
    skill's colors, so an amount is never spent on a color the player did not see. The amounts
    are labelled with those colors (a refused form keeps the labels it was shown with)."""

    skill = choice(
        ManaSkill.objects.none(), "Choose one of this campaign's skills.", empty_label=None
    )
    color_a = forms.CharField(widget=forms.HiddenInput)
    color_b = forms.CharField(widget=forms.HiddenInput)
    spend_a = SpendField("First color")
    spend_b = SpendField("Second color")
    colorless = SpendField("Colorless")
    intent = forms.CharField(label="What you try", max_length=INTENT_MAX, required=False)
    contribution = contribution_field()

    def __init__(self, data, *, skills, **kwargs):
        super().__init__(data, **kwargs)
        self.fields["skill"].queryset = skills
        for x in "ab":
            color = self.data.get(f"color_{x}")
            if isinstance(color, str) and color.strip():
                self.fields[f"spend_{x}"].label = color.strip().capitalize()

    def clean(self):
        cleaned = super().clean()
        skill = cleaned.get("skill")
        colors = (cleaned.get("color_a"), cleaned.get("color_b"))
        if skill and colors != (skill.color_a, skill.color_b):
            raise ValidationError(
                f"{isolated(skill.name)} is rolled with {isolated(skill.color_a)} and "
                f"{isolated(skill.color_b)} mana, not "
                f"{' and '.join(c for c in colors if c) or 'the colors you entered'}. "
                "Enter the amounts again."
            )
        return cleaned


class Mana(RuleSystem):
    key = "mana"
    name = "Mana"
    summary = (
        "checks of a skill in d10s, one more die for each unit of the skill's two colors of "
        "mana spent from the character's pool; 8s, 9s and 0s are successes against a difficulty"
    )
    sheet = sheet
    #: Its URLs (``config/urls.py`` includes them, gated to its campaigns).
    urls = "rolls.systems.mana.urls"
    number = "difficulty"
    any_choice = "any skill"
    about_field = "mana_skill"
    #: Its row of a check (the skill it is for), read along with the check; a card shows
    #: nothing more.
    check_related = ("mana_check__skill",)
    #: The rules page's odds calculator (``insights``): its form and its template (given the
    #: values typed as ``v`` and the chance they have as ``result``).
    calculator = ManaCalculatorForm
    calculator_template = "rolls/systems/mana/_calculator.html"
    #: What the luck page's distributions of the dice show (``rolled_groups``).
    distribution_caption = "Successes per number of dice"

    # The luck page's distributions (of what ``rolled`` keeps, the number of dice) and the
    # export's words: this system's ``report``.
    rolled = staticmethod(services.rolled)
    exact_distribution = staticmethod(report.exact_distribution)
    export_about = staticmethod(report.export_about)
    export_rolled = staticmethod(report.export_rolled)
    drawn = staticmethod(report.drawn)
    replay = staticmethod(report.replay)

    def rolled_pool(self, text):
        """A pool's number of dice, from what ``rolled`` kept."""
        return int(text)

    def skills(self, check):
        """The skills the check may be rolled with: the check's own if it has one (the skill
        asked, or the one the first attempt rolled: a re-attempt keeps it), else any."""
        skills = check.campaign.mana_skills.all()
        own = check_of(check)
        if own.skill_id:
            skills = skills.filter(pk=own.skill_id)
        return skills

    def roll_form(self, check, data, *, skills=None):
        """The bound roll form, validated here, where its fields are (what it sent is read
        once: its errors and cleaned data are kept): the view and the roll share its cleaned data.
        It takes any of the campaign's skills (``skills``: those offered); the roll refuses one
        the check does not allow with the reason."""
        skills = check.campaign.mana_skills.all() if skills is None else skills
        form = ManaRollForm(data, skills=skills, auto_id=ROLL_AUTO_ID.format(check.pk or "npc"))
        form.is_valid()
        return form

    def roll_context(self, check, *, form=None, changed=None):
        """The roll form's choices, values and live odds. ``form`` is bound to what the player
        sent; without it the form starts from ``changed`` (the values sent when the player
        picked another skill) or from the check's suggestion."""
        queryset = self.skills(check)
        skills = list(queryset)
        if not skills:
            return {"skills": []}
        if form is None:
            data = _first_values(check, skills, changed or {})
            form = self.roll_form(check, data, skills=queryset)
        skill = chosen(skills, form["skill"].value()) or skills[0]
        pools = {p.color: p for p in ManaPool.objects.filter(character=check.character)}
        shown = [
            (name, color, pools.get(color) or ManaPool(color=color))
            for name, color in (
                ("spend_a", skill.color_a),
                ("spend_b", skill.color_b),
                ("colorless", COLORLESS),
            )
        ]
        return {
            "form": form,
            "skills": skills,
            "skill": skill,
            "fixed": bool(check_of(check).skill_id),
            "inputs": [(form[name], pool) for name, _color, pool in shown],
            "odds": {
                **_odds(check, form, shown, pools),
                "advice": _advice(check, skill, form, pools),
            },
        }

    def odds(self, check, form):
        return self.roll_context(check, form=form)["odds"]

    #: The roll (``services.roll``, called straight from the view's write), the GM's for an NPC
    #: too (``roll_npc``'s default).
    roll = staticmethod(services.roll)
    #: A roll spends its character's mana pools, private facts: its pushes tell their pages.
    roll_facts = "private"

    def about_form_field(self, campaign):
        """The ask and request forms' skill: one of the campaign's, or any."""
        return choice(
            campaign.mana_skills.all(),
            "Choose one of this campaign's skills.",
            required=False,
            empty_label="— any skill —",
            label="Skill",
        )

    def check_fill(self, check, *, mana_skill=None, suggestion=""):
        """A new check's own row: the skill asked (None: any)."""
        services.check_fill(check, skill=mana_skill)

    def npc_asked(self, data):
        """What the GM's NPC roll (its roll form's cleaned ``data``) asks: the skill rolled."""
        return {"mana_skill": data.get("skill")}

    def asked(self, check):
        skill = check_of(check).skill
        return skill.name if skill else ""

    def saved_check_fields(self, character):
        """A skill of the campaign and the mana spent on it, of each kind. The skills are read
        into the campaign's cache, where the sheet's Mana section finds them: one read for
        both (``campaign.mana_skills.all()``)."""
        prefetch_related_objects([character.campaign], "mana_skills")
        skills = [(str(s.pk), s.name) for s in character.campaign.mana_skills.all()]
        spends = [
            ("spend_a", "First color"),
            ("spend_b", "Second color"),
            ("colorless", "Colorless"),
        ]
        return (
            {"name": "skill", "label": "Skill", "options": skills},
            *({"name": n, "label": label, "min": 0, "max": MAX_SPEND} for n, label in spends),
        )

    def saved_check_clean(self, character, data):
        """The skill (by id: the GM may rename it) and the amounts, each 0 to MAX_SPEND."""
        skill = character.campaign.mana_skills.filter(pk=parse_id(str(data.get("skill") or "")))
        skill = skill.first()
        if skill is None:
            raise Refused("Choose one of this campaign's skills.")
        kept = {"skill": skill.pk}
        for name, what in (
            ("spend_a", skill.color_a),
            ("spend_b", skill.color_b),
            ("colorless", COLORLESS),
        ):
            field = forms.IntegerField(min_value=0, max_value=MAX_SPEND, required=False)
            try:
                kept[name] = field.clean(data.get(name)) or 0
            except ValidationError:
                raise Refused(f"Mana of {what}: a whole number from 0 to {MAX_SPEND}.") from None
        spent = [
            f"{kept[n]} {c}"
            for n, c in (
                ("spend_a", skill.color_a),
                ("spend_b", skill.color_b),
                ("colorless", COLORLESS),
            )
            if kept[n]
        ]
        return {**kept, "text": f"{skill.name}" + (f" ({' + '.join(spent)})" if spent else "")}

    def saved_check_data(self, character, choices):
        """The skill's colors now, with the amounts kept."""
        skill = character.campaign.mana_skills.filter(pk=choices.get("skill")).first()
        if skill is None:
            return {"skill": ""}
        return {
            "skill": skill.pk,
            "color_a": skill.color_a,
            "color_b": skill.color_b,
            **{n: choices.get(n, 0) for n in ("spend_a", "spend_b", "colorless")},
        }

    def closed_by_gm(self, check, last_roll):
        """A done check whose last roll failed was closed by the GM (no re-attempt)."""
        return last_roll is None or not last_roll.data["success"]

    # What it adds to a character's sheet, after its header (its context:
    # ``sheet.section_context``): its section, which loads on its own (``views.MANA``).
    sheet_sections = ((views.MANA.name, views.MANA.template),)
    sheet_pieces = (views.MANA,)

    # Its party column (its values: ``sheet.party_row``); nothing on the campaign page.
    party_head = "rolls/systems/mana/_party_head.html"
    party_cells = "rolls/systems/mana/_party_cells.html"

    # What it adds to the GM panel: the campaign's skills beside the panel's own cards
    # (``views.SKILLS``), the mana pools below (``views.GM_MANA``, loading
    # on its own).
    panel_cards = ((views.SKILLS.name, views.SKILLS.template),)
    panel_sections = (("mana", "rolls/systems/mana/_panel_mana.html"),)
    gm_pieces = (views.GM_MANA,)

    def panel_context(self, request, campaign, overrides):
        """The skills' rows and the new skill's form; ``overrides["edit_form"]`` is the refused
        form of the skill being edited."""
        new = ManaSkillForm(palette=palette_of(campaign), prefix="new-skill")
        return {"skill_rows": _skill_rows(campaign, overrides.get("edit_form")), "skill_form": new}

    # The campaign's settings: its palette (and, at creation, its first skills).
    create_template = "rolls/systems/mana/_create_fields.html"
    settings_template = "rolls/systems/mana/_settings_fields.html"
    settings_keys = ("palette",)
    #: Its settings' row, read along with the campaign (``campaigns.access``).
    campaign_related = ("mana_settings",)
    #: Its row of a character (its traits), read along with it (``character_for``, a check's
    #: character, the NPC roll's choice).
    character_related = ("mana_sheet",)

    def campaign_fill(self, campaign, *, palette=None, skills=()):
        """A new campaign's settings and skills, those typed in the create form
        (``clean_create``)."""
        services.campaign_fill(campaign=campaign, palette=palette, skills=skills)

    def settings_update(self, campaign, *, palette):
        """The GM's settings: the palette renamed and added to (``clean_settings``)."""
        services.palette_update(campaign=campaign, palette=palette)

    def create_fields(self):
        return {"palette": PaletteField(), "skills": skills_field()}

    def clean_create(self, form, cleaned):
        """The skills typed, parsed against the palette (``forms.parse_skills``)."""
        if "palette" in cleaned:
            try:
                cleaned["skills"] = parse_skills(cleaned.get("skills", ""), cleaned["palette"])
            except ValidationError as error:
                form.add_error("skills", error)

    def settings_fields(self, campaign):
        """A field per palette color (``color_0``...) to rename it, and ``add_colors``."""
        fields = {
            f"color_{index}": color_field(index, color)
            for index, color in enumerate(palette_of(campaign))
        }
        return fields | {"add_colors": add_colors_field()}

    def clean_settings(self, form, cleaned):
        """``cleaned["palette"]``: the new palette, position for position (see
        ``services.palette_update``)."""
        if form.errors:
            return
        old = palette_of(form.campaign)
        renamed = [cleaned[f"color_{index}"] for index in range(len(old))]
        added = split_colors(cleaned.get("add_colors", ""))
        cleaned["palette"] = renamed_palette(old, renamed, added)


def _skill_rows(campaign, bound=None):
    """[(skill, its edit form)]; ``bound`` replaces the form of the skill being edited."""
    rows = []
    for skill in campaign.mana_skills.all():
        form = ManaSkillForm(
            initial={f: getattr(skill, f) for f in ("name", "color_a", "color_b", "trait")},
            palette=palette_of(campaign),
            prefix=f"skill-{skill.id}",
        )
        rows.append((skill, bound if bound and bound.prefix == form.prefix else form))
    return rows


def _odds(check, form, shown, pools):
    odds = {"pools": [pool for _name, _color, pool in shown]}
    if not form.is_valid():
        odds["error"] = first_error(form)
        return odds
    data = form.cleaned_data
    spend = {color: data[name] for name, color, _pool in shown}
    try:
        services.mana_skill_require(check, data["skill"])
        dice = services.mana_dice(
            check=check,
            skill=data["skill"],
            spend_a=data["spend_a"],
            spend_b=data["spend_b"],
            colorless=data["colorless"],
        )
        services.mana_require(spend, {color: p.current for color, p in pools.items()})
    except Refused as refusal:
        odds["error"] = str(refusal)
    else:
        odds["dice"] = dice.describe()
        odds["chance"] = mana.success_probability(dice.dice, check.target)
    return odds


def _advice(check, skill, form, pools):
    """The mana advisor: the chance of each spend the pool can pay (the cheapest ADVICE_ROWS,
    each the spend of so many units that rolls the most dice) and the cheapest spend that reaches
    the chance the player wants."""
    if check.target is None:
        return None
    have = {color: p.current for color, p in pools.items()}
    earlier = []
    if check.pk is not None:  # else a check not asked yet (the GM's NPC roll form)
        earlier = check.rolls.filter(kind=LogEntry.ROLL).values_list("data__units", flat=True)
        earlier = list(earlier)
    spends = advice.mana_spends(
        have.get(skill.color_a, 0),
        have.get(skill.color_b, 0),
        have.get(COLORLESS, 0),
        check.target,
        has_trait=has_trait(check.character, skill.trait),
        previous_units=sum(earlier),
        reattempt=bool(earlier),
    )
    typed = form.data.get("want", WANT_DEFAULT)
    want, error = _wanted(typed)
    rows = [
        {
            "spend": _spend_text(s, skill),
            "dice": s.dice.dice,
            "chance": s.chance,
            "fields": {"spend_a": s.spend_a, "spend_b": s.spend_b, "colorless": s.colorless},
        }
        for s in spends
    ]
    best = advice.cheapest(spends, Fraction(want, 100))
    return {
        "rows": rows[:ADVICE_ROWS],
        "more": len(rows) > ADVICE_ROWS,
        "want": want,
        "typed": typed,
        "want_error": f"Wanted chance: {error}" if error else "",
        "best": rows[spends.index(best)] if best else None,
    }


#: The wanted chance is read apart from the roll form: whatever is typed there, the roll goes on.
WANT_FIELD = forms.IntegerField(min_value=1, max_value=100, required=False)


def _wanted(typed):
    """(the wanted chance in percent, or WANT_DEFAULT; why ``typed`` is refused, or "")."""
    try:
        return WANT_FIELD.clean(typed) or WANT_DEFAULT, ""
    except ValidationError as error:
        return WANT_DEFAULT, error.messages[0]


def _spend_text(spend, skill):
    """E.g. "2 blue + 1 white + 2 colorless", or "nothing (the free die alone)"."""
    parts = [
        f"{amount} {color}"
        for amount, color in (
            (spend.spend_a, skill.color_a),
            (spend.spend_b, skill.color_b),
            (spend.colorless, COLORLESS),
        )
        if amount
    ]
    return " + ".join(parts) or "nothing (the free die alone)"


def _first_values(check, skills, changed):
    """The roll form's first values: the chosen skill (else the check's), the amounts typed for
    its colors (else 0), the colorless and the intent."""
    skill = chosen(skills, changed.get("skill")) or _suggested_skill(check, skills)
    typed = {changed.get(f"color_{x}"): changed.get(f"spend_{x}") for x in "ab"}
    return {
        "skill": skill.pk,
        "color_a": skill.color_a,
        "color_b": skill.color_b,
        "spend_a": typed.get(skill.color_a) or 0,
        "spend_b": typed.get(skill.color_b) or 0,
        "colorless": changed.get("colorless", 0),
        "intent": changed.get("intent", check.intent),
        "want": changed.get("want", WANT_DEFAULT),
    }


def _suggested_skill(check, skills):
    by_id = chosen(skills, check_of(check).skill_id)
    if by_id:
        return by_id
    text = check.suggestion.casefold()
    named = [s for s in skills if text and s.name.casefold() in text]
    return max(named, key=lambda s: len(s.name)) if named else skills[0]


SYSTEM = Mana()
