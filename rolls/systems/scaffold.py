"""What a system's package is built of besides its ``RuleSystem`` (``base.py``), written once
for every system: its package's ``SYSTEM`` imported when first asked for (``lazy_system``), its
URLs' prefixes (``CAMPAIGN``, ``SHEET``, ``GM``) and its GM panel sections that load on their
own (``gm_piece``, their templates named in the system's ``gm_pieces``). Pool's and Mana's
packages use them (their admin's part: ``rolls.systems.admin``; their models':
``rolls.systems.models``)."""

from importlib import import_module

#: The prefixes of a system's URLs (its ``urls.py``): a campaign's, a character's sheet's and
#: the GM panel's, as the shared pages have them.
CAMPAIGN = "campaigns/<id:campaign_id>/"
SHEET = CAMPAIGN + "characters/<id:character_id>/"
GM = CAMPAIGN + "gm/"


def lazy_system(package):
    """The module ``__getattr__`` of a system's package ``package`` (its ``__name__``): its
    ``SYSTEM``, from its ``system.py``, imported when first asked for. Imported at once, the
    package, which is a Django app too, would read its models before the app registry is ready
    (``apps.py`` is imported first)."""

    def __getattr__(name):
        if name == "SYSTEM":
            return import_module(f"{package}.system").SYSTEM
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    return __getattr__


def gm_access(request, campaign_id, system):
    """The ``found`` of a GM panel section's own GET: the campaign, the GM's alone; ``system``
    is what ``config/urls.py`` gives every view of a system's URLs (404 in another's)."""
    from campaigns.access import campaign_for

    return (campaign_for(request, campaign_id, gm=True, system=system),)


def gm_piece(name, template, context):
    """A section of the GM panel that loads on its own (a ``core.writes.Piece`` only htmx
    fetches; a plain post goes back to the panel), its ``context(request, campaign,
    **overrides)``: e.g. Pool's approvals, Mana's pools. Name it in the system's
    ``gm_pieces`` (its template is checked at registration)."""
    from campaigns.views import panel_with
    from core.writes import Piece

    return Piece(
        name=name,
        template=template,
        context=context,
        page=panel_with,
        url="gm_panel",
        access=gm_access,
        fragment_only=True,
    )
