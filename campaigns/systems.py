"""The rule systems a campaign may play, by key (``Campaign.system``): a registry the floors
above fill, so that campaigns and sheets ask the campaign's system what it adds without
importing rolls (pyproject.toml's contracts). ``rolls`` fills it at its ``ready()`` from the
setting ``ROLL_SYSTEMS`` (``rolls.systems.register``); what a system object offers is written
in ``rolls/systems/base.py`` (``RuleSystem``)."""

#: The systems played, by key.
SYSTEMS = {}


def system_of(campaign):
    """The system ``campaign`` plays."""
    return SYSTEMS[campaign.system]


def system_choices():
    """The registered systems as choices, ``[(key, name)]``: ``Campaign.system`` and the create
    form offer every system registered, with no migration per system."""
    return [(key, system.name) for key, system in SYSTEMS.items()]


def campaign_related():
    """What a campaign is read along with (``select_related``): every system's own rows of it
    (its ``campaign_related``, e.g. its settings), so that no system's read costs a query."""
    return [name for system in SYSTEMS.values() for name in system.campaign_related]
