"""The path of one roll's request through the project's modules: from the view to the pushes, a
Pool roll and a Mana roll walk the modules in the order docs/architecture.md walks ("One roll,
from the form to every socket"), so that the walk a newcomer reads there is the one the code
takes.

A module is entered when one of its functions is called from another module's, or from Django's
or a library's whose nearest project caller is another module's (a callback). The path counts
the modules that do a step of the roll; the leaves any step may call are left out: the models
(rows and their methods), the rules engine (pure functions), the template tags, ``core.ids``,
``core.text`` (the template tags' isolation of typed text) and the systems' registry
(``campaigns.systems``).
Two calls in a row from one module into another, with only leaves between them, are one entry.
"""

import inspect
import sys

import pytest
from django.conf import settings

from room import views
from tests.rolls.room_setup import ask, fill, mana_params, script_dice, url

ROOT = str(settings.BASE_DIR) + "/"
#: The project's packages (the floors of ``pyproject.toml``'s contract).
PROJECT = {
    "bench",
    "config",
    "insights",
    "sparetime",
    "room",
    "rolls",
    "sheets",
    "campaigns",
    "core",
}


def project_module(frame):
    """The project module ``frame`` runs in, or None (Django, a library, the tests)."""
    name = frame.f_globals.get("__name__", "")
    if name.split(".")[0] in PROJECT | {"rules"} and frame.f_code.co_filename.startswith(ROOT):
        return name
    return None


def is_leaf(module):
    parts = module.split(".")
    return (
        parts[0] == "rules"
        or parts[-1] == "models"
        or "templatetags" in parts
        or module in ("core.ids", "core.text", "campaigns.systems")
    )


def caller_module(frame):
    frame = frame.f_back
    while frame is not None:
        module = project_module(frame)
        if module:
            return module
        frame = frame.f_back
    return None


def modules_entered(view_code, callable_):
    """``callable_()``, and the project modules entered while the view whose code is
    ``view_code`` runs (itself first), in order: every entry, leaves included."""
    entered = []
    running = []

    def profile(frame, event, arg):
        if frame.f_code is view_code:
            if event == "call":
                running.append(frame)
                entered.append(project_module(frame))
            elif event == "return":
                running.remove(frame)
            return
        if event != "call" or not running:
            return
        module = project_module(frame)
        if module and module != caller_module(frame):
            entered.append(module)

    sys.setprofile(profile)
    try:
        result = callable_()
    finally:
        sys.setprofile(None)
    return result, entered


def path_of(entered):
    """The path: the entries of the modules that do a step, without the leaves; two entries
    of one module in a row are one."""
    path = []
    for module in entered:
        if not is_leaf(module) and (not path or path[-1] != module):
            path.append(module)
    return path


def roll_path(client, target, data):
    """The path of one roll's htmx POST to ``target``, from ``room.views.check_roll`` to its
    pushes."""
    response, entered = modules_entered(
        inspect.unwrap(views.check_roll).__code__,
        lambda: client.post(target, data, HTTP_HX_REQUEST="true"),
    )
    assert response.status_code == 204
    return path_of(entered)


def pool_roll_path(pool_table, client):
    """The path of one Pool roll's htmx POST, from ``room.views.check_roll`` to its pushes."""
    check = ask(pool_table, pool_table.ilse)
    target = url("check_roll", pool_table, check.id)
    data = {"attribute": pool_table.strength.id, "skill": pool_table.jump.id}
    return roll_path(client, target, data)


def mana_roll_path(mana_table, client):
    """The path of one Mana roll's htmx POST (1 blue and 1 white mana spent), from
    ``room.views.check_roll`` to its pushes."""
    fill(mana_table.mira, blue=3, white=2)
    check = ask(mana_table, mana_table.mira)
    target = url("check_roll", mana_table, check.id)
    return roll_path(client, target, mana_params(mana_table, spend_a=1, spend_b=1))


#: The path of one Pool roll (docs/architecture.md walks it), then the layer's.
POOL_ROLL_PATH = [
    "room.views",  # check_roll
    "rolls.access",  # check_for: the check (then system_of, the registry: a leaf)
    "campaigns.access",  # campaign_for: the viewer's membership
    "rolls.systems.pool.system",  # Pool.roll_form: bound and validated (its ShiftFields)
    "core.writes",  # attempt: the transaction
    "room.views",  # _check_write's write: the roll, then its pushes registered
    "rolls.systems.pool.services",  # roll, check_roll_pool
    "rolls.services",  # check_claim, roll_dice (the head, the open seed), log_append
    "rolls.export",  # the entry's cells in the CSV export (cells_text)
    "rolls.systems.pool.report",  # export_about, export_rolled: as the system writes them
    "rolls.chain",  # the entry's hash
    "room.push",  # push_check: the check's pushes registered
    "core.push",  # send_on_commit; once committed, send_rendered
    "room.push",  # check_messages: the check's cards and the entry's variants
]

#: The path of one Mana roll: its pushes start with the pools' facts push (``Mana.roll_facts``,
#: registered before the card's: ``core.push.push_facts``), and a failed roll's card stays live.
MANA_ROLL_PATH = [
    "room.views",  # check_roll
    "rolls.access",  # check_for
    "campaigns.access",  # campaign_for
    "rolls.systems.mana.system",  # Mana.roll_form: bound and validated (its SpendFields)
    "core.writes",  # attempt: the transaction
    "room.views",  # _check_write's write: the roll, then its pushes registered
    "rolls.systems.mana.services",  # roll, check_roll_mana: the pools spent, the dice
    "rolls.services",  # check_locked, roll_dice, log_append
    "rolls.export",  # the entry's cells in the CSV export (cells_text)
    "rolls.systems.mana.report",  # export_about, export_rolled: as the system writes them
    "rolls.chain",  # the entry's hash
    "core.push",  # push_facts: the facts push registered
    "room.push",  # push_check: the check's pushes registered
    "core.push",  # send_on_commit; once committed, the facts push sent
]

#: Once committed, the Mana roll's check pushes: rendered, then sent.
MANA_CHECK_PUSHES = ["core.push", "room.push"]

#: Then, from core.push's group_send_all, whether Redis is known to be away, and that it was
#: not (core.shared_redis's outage; the sends themselves run in the event loop's thread).
SEND_STEPS = ["core.shared_redis"]


@pytest.mark.django_db(transaction=True)  # the write commits: its pushes leave in the request
def test_one_pool_roll_walks_the_modules_the_architecture_walks(pool_table, as_user, player):
    client = as_user(player)
    pool_roll_path(pool_table, client)  # the first roll of the process reads its templates
    path = pool_roll_path(pool_table, client)
    assert path == POOL_ROLL_PATH + SEND_STEPS


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("face", [9, 1], ids=["success", "failure"])
def test_one_mana_roll_walks_the_modules_the_architecture_walks(
    mana_table, as_user, player, monkeypatch, face
):
    client = as_user(player)
    script_dice(monkeypatch, *[face] * 8)
    mana_roll_path(mana_table, client)  # the first roll of the process reads its templates
    script_dice(monkeypatch, *[face] * 8)
    path = mana_roll_path(mana_table, client)
    assert path == MANA_ROLL_PATH + SEND_STEPS + MANA_CHECK_PUSHES + SEND_STEPS
