"""The Fate-style system's ``RuleSystem``: only what differs from the defaults."""

from django import forms

from rolls.forms import INTENT_MAX, ROLL_AUTO_ID, choice, chosen, contribution_field, first_error
from rolls.systems import RuleSystem

from . import services
from .models import FateSkill
from .services import DICE, FACES, KEY, WAYS, chance, sum_chance
from .sheet import FateSheet


class FateRollForm(forms.Form):
    """A Fate-style roll: one of the character's skills, and what the character tries."""

    skill = choice(FateSkill.objects.none(), "Choose one of your character's skills.")
    intent = forms.CharField(label="What you try", max_length=INTENT_MAX, required=False)
    contribution = contribution_field()

    def __init__(self, data, *, skills, **kwargs):
        super().__init__(data, **kwargs)
        self.fields["skill"].queryset = skills


class Fate(RuleSystem):
    """4dF plus a skill against a difficulty. It keeps no row of a check, a campaign or a
    character beyond its skills (its ``sheet``); no settings, shifts, URLs, calculator, party
    columns or GM panel sections: the defaults."""

    key = KEY
    name = "Fate-style"
    summary = "four Fudge dice (-1, 0, +1 each) plus a skill's rating against a difficulty"
    number = "difficulty"
    any_choice = "any skill"
    sheet = FateSheet
    sheet_sections = (("fate", "rolls/systems/fate_style/_sheet_skills.html"),)
    distribution_caption = "The sum of the four Fudge dice"

    def roll_form(self, check, data):
        skills = FateSkill.objects.filter(character=check.character)
        form = FateRollForm(data, skills=skills, auto_id=ROLL_AUTO_ID.format(check.pk or "npc"))
        form.is_valid()
        return form

    def roll_context(self, check, *, form=None, changed=None):
        """The character's skills: the one the check's suggestion names alone, if it names one
        (``services.skill_require``), else all of them."""
        skills = list(FateSkill.objects.filter(character=check.character))
        named = [s for s in skills if s.name.casefold() == check.suggestion.strip().casefold()]
        skills = named or skills
        if not skills:
            return {"skills": []}
        if form is None:
            changed = changed or {}
            first = chosen(skills, changed.get("skill")) or skills[0]
            data = {"skill": first.pk, "intent": changed.get("intent", check.intent)}
            form = self.roll_form(check, data)
        skill = chosen(skills, form["skill"].value()) or skills[0]
        return {"form": form, "skills": skills, "skill": skill, "odds": self.odds(check, form)}

    def odds(self, check, form):
        if not form.is_valid():
            return {"error": first_error(form)}
        rating = form.cleaned_data["skill"].rating
        return {"dice": f"{DICE}dF + {rating}", "chance": chance(rating, check.target)}

    #: The roll (``services.roll``, called straight from the view's write), the GM's for an NPC
    #: too (``roll_npc``'s default).
    roll = staticmethod(services.roll)

    def asked(self, check):
        return check.suggestion

    def suggestions(self):
        """The skills of a new character, offered while typing what a check is about."""
        from .sheet import PYRAMID

        return [name for name, _rating in PYRAMID]

    # The luck page: the sum of the dice of every roll, against its exact chance.
    def rolled(self, data):
        return f"{DICE}dF", sum(data["faces"])

    def exact_distribution(self, pool, counts, *, max_bins, tail):
        last = max(WAYS)
        chances = [(total, sum_chance(total)) for total in sorted(WAYS)]
        return pool, "sum", chances, last, sum_chance(last)

    def export_about(self, data):
        return f"{data['skill']} +{data['rating']}"

    def export_rolled(self, data):
        faces = " ".join(f"{face:+d}" for face in data["faces"])
        return f"{DICE}dF + {data['rating']}", faces, f"total {data['total']}"

    # Its draws, checked by ``verify_rolls``: each die a draw of 1 to 3; rolled again, the same.
    def drawn(self, data):
        return [[1, FACES, face + 2] for face in data["faces"]]

    def replay(self, data, rng):
        return services.outcome(data["rating"], data["target"], services.fudge_dice(rng))


SYSTEM = Fate()
