"""Pool's sheet forms: HP, a rating, a template skill taken, a custom skill proposed."""

from django import forms

from core.names import plain_name

from .models import Rating
from .services import RATING_MAX, SKILL_NAME_MAX


class RatingForm(forms.Form):
    value = forms.IntegerField(min_value=0, max_value=RATING_MAX, label="Rating")


class HpForm(forms.Form):
    def __init__(self, *args, hp_max, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["hp_current"] = forms.IntegerField(
            min_value=0, max_value=hp_max, label="Current HP"
        )


class TemplateSkillForm(forms.Form):
    attribute = forms.ChoiceField(choices=Rating.ATTRIBUTE_CHOICES)
    template = forms.CharField(max_length=80)
    # Left optional so that an empty blank gets the rules' own message ("Name the Region.").
    fill = forms.CharField(
        max_length=SKILL_NAME_MAX, required=False, label="Name", validators=[plain_name]
    )


class SkillProposalForm(forms.Form):
    attribute = forms.ChoiceField(choices=Rating.ATTRIBUTE_CHOICES)
    name = forms.CharField(max_length=SKILL_NAME_MAX, label="New skill", validators=[plain_name])
