"""The GM's handouts (issue #47): the GM shares a text, and optionally an image, with every
player or with the players ticked; each member finds those shared with them in the room's
Handouts card and on their handouts page, and a new one arrives live in the room of those it
is for, and of nobody else (``scene.handout_push``).

Pages: every member's handouts (``scene_handouts``: the list for its viewer; the GM's, all of
them with who each is for and a delete button, under the share form), the GM's share form
(``scene_handouts_gm``: GM only, 403 for a player), its post (``scene_handout_share``) and a
delete (``scene_handout_delete``). The room shows the same list and, for the GM, the same form
(``room_card``, one of ``room.views.ROOM_CARDS``).

A share is answered with the form again, empty, saying what was shared (or, 422, the refused
form), and the GM's list with it; the list of every member it is for comes through their
socket. Sharing writes no log entry: the log is every member's, and a handout for chosen
players would tell the others, by its entry, that there was one.
"""

from django import forms
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.shortcuts import get_object_or_404, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.views.decorators.http import require_POST

from campaigns.access import campaign_for
from campaigns.models import Membership
from core.ids import IdsChoiceField
from core.images import MAX_BYTES
from core.text import isolated
from core.writes import OnceField, Piece, answer, attempt

from . import services
from .handout_push import LIST_TEMPLATE, list_context, render_list
from .models import Handout

EVERYONE, CHOSEN = "everyone", "chosen"


class PlayersField(IdsChoiceField):
    def label_from_instance(self, obj):
        return isolated(obj.username)


class HandoutForm(forms.Form):
    """The GM's handout: a title, a text, an image, and who it is for."""

    title = forms.CharField(max_length=services.HANDOUT_TITLE_MAX)
    text = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 5}),
        required=False,
        max_length=services.HANDOUT_TEXT_MAX,
    )
    picture = forms.FileField(
        label="Image",
        required=False,
        help_text=f"PNG, JPEG or WebP, at most {MAX_BYTES // (1024 * 1024)} MB. Optional.",
        widget=forms.ClearableFileInput(attrs={"accept": "image/png,image/jpeg,image/webp"}),
    )
    audience = forms.ChoiceField(
        label="Share with",
        choices=[(EVERYONE, "Every player"), (CHOSEN, "Only the players ticked below")],
        initial=EVERYONE,
        widget=forms.RadioSelect,
    )
    recipients = PlayersField(
        label="Players",
        queryset=get_user_model().objects.none(),
        required=False,
        widget=forms.CheckboxSelectMultiple,
        error_messages={
            "invalid_choice": "Choose players of this campaign.",
            "invalid_pk_value": "Choose players of this campaign.",
        },
    )
    once = OnceField()  # a double submit shares once

    def __init__(self, campaign, *args, **kwargs):
        super().__init__(*args, prefix="handout", auto_id="%s", **kwargs)
        self.fields["recipients"].queryset = (
            get_user_model()
            .objects.filter(memberships__campaign=campaign, memberships__role=Membership.PLAYER)
            .order_by("username")
        )

    def clean(self):
        data = super().clean()
        if data.get("audience") == CHOSEN and not data.get("recipients"):
            self.add_error("recipients", "Tick the players to share it with.")
        return data

    def share_args(self):
        """The arguments of ``services.handout_share``."""
        data = self.cleaned_data
        everyone = data["audience"] == EVERYONE
        return {
            "title": data["title"],
            "text": data["text"],
            "upload": data["picture"] or None,
            "everyone": everyone,
            "recipients": [] if everyone else list(data["recipients"]),
        }


# The pieces ---------------------------------------------------------------------------------


def _list_context(request, campaign, **overrides):
    """The viewer's handouts (``handout_push.list_context``)."""
    viewer = campaign.viewer
    return list_context(campaign, user_id=viewer.user_id, is_gm=viewer.is_gm, **overrides)


def _form_context(request, campaign, *, form=None, notice=""):
    return {"campaign": campaign, "form": form or HandoutForm(campaign), "notice": notice}


def _page(request, context, replace):
    """The handouts page: the viewer's handouts, under the share form for the GM; ``replace``:
    a piece's HTML in its place (a refused form)."""
    campaign = context["campaign"]
    is_gm = campaign.viewer.is_gm
    form_html = replace.get("handout-form") or (FORM.html(request, campaign) if is_gm else "")
    list_html = replace.get("handouts") or LIST.html(request, campaign)
    page_context = {"campaign": campaign, "form_html": form_html, "list_html": list_html}
    return render(request, "scene/handouts.html", page_context)


#: The viewer's handouts: the room's card and the page show it, a push replaces it.
LIST = Piece(
    name="handouts",
    template=LIST_TEMPLATE,
    context=_list_context,
    page=_page,
    url="scene_handouts",
    access=lambda request, campaign_id: (campaign_for(request, campaign_id),),
)
#: The GM's share form.
FORM = Piece(
    name="handout-form",
    template="scene/_handout_form.html",
    context=_form_context,
    page=_page,
    url="scene_handouts_gm",
    access=lambda request, campaign_id: (campaign_for(request, campaign_id, gm=True),),
)

handouts = LIST.view()
handouts_gm = FORM.view()


def room_card(request, campaign):
    """The room's Handouts card (``room.views.ROOM_CARDS["side"]``): the viewer's handouts, the
    share form for the GM, and the live region a new handout is said in."""
    context = {
        "campaign": campaign,
        "form_html": FORM.html(request, campaign) if campaign.viewer.is_gm else "",
        "list_html": LIST.html(request, campaign),
    }
    return render_to_string("scene/_handouts_card.html", context, request=request)


# The GM's writes ----------------------------------------------------------------------------


def _shared_notice(form):
    data = form.cleaned_data
    title = isolated(data["title"].strip())
    if data["audience"] == EVERYONE:
        return f"Shared {title} with every player."
    names = ", ".join(isolated(user.username) for user in data["recipients"])
    return f"Shared {title} with {names}."


@login_required
@require_POST
def handout_share(request, campaign_id):
    """The GM shares a handout. htmx: the form again, empty, with what was shared, and the GM's
    list (out of band: the pages outside the room have no socket to bring it); 422 with the
    refused form. Refused, nothing is stored and nothing pushed."""
    campaign = campaign_for(request, campaign_id, gm=True)
    form = HandoutForm(campaign, request.POST, request.FILES)
    ok, result = attempt(
        lambda: services.handout_share(campaign=campaign, **form.share_args()),
        form=form,
        once_by=request.user,
    )
    if not ok:
        if result:
            form.add_error(None, result)
        return FORM.answer(request, campaign, ok=False, form=form)
    notice = _shared_notice(form)

    def fragment():
        viewer = campaign.viewer
        gm_list = render_list(campaign, user_id=viewer.user_id, is_gm=True, oob=True)
        return FORM.html(request, campaign, notice=notice) + gm_list

    return answer(
        request,
        ok=True,
        fragment=fragment,
        page=None,
        url=reverse("scene_handouts", args=[campaign.pk]),
        notice=notice,
    )


@login_required
@require_POST
def handout_delete(request, campaign_id, handout_id):
    """The GM takes a handout back: answered with the GM's list (every page it was on hears
    of it through its socket)."""
    campaign = campaign_for(request, campaign_id, gm=True)
    handout = get_object_or_404(Handout, campaign=campaign, pk=handout_id)
    title = handout.title
    ok, result = attempt(lambda: services.handout_delete(handout=handout))
    if not ok:
        return LIST.answer(request, campaign, ok=False, error=result)
    return LIST.answer(request, campaign, ok=True, notice=f"Deleted {isolated(title)}.")
