"""Provable GM-secret rolls: a commitment every player sees at once (rolls.chain.seal), the GM's
reveal (rolls.services.roll_reveal, room.views.roll_reveal) and its check by log_verify."""

import hashlib
import re

import pytest

from rolls import chain, services
from rolls.models import PUBLIC, SECRET, LogEntry
from rolls.systems.pool import services as pool_services
from room import push
from tests.helpers import HTMX, raises_refused
from tests.rolls.room_setup import ask, entry_html, roll_mana, url
from tests.rules.scripted_rng import ScriptedRng

FACES = (9, 9, 8, 10)


def secret_roll(mana_table):
    """The GM's secret roll for the Warden, an NPC: faces 9 9 8 10, three successes."""
    check = ask(mana_table, mana_table.npc, target=2, visibility=SECRET, note="NOTE-SECRET")
    return roll_mana(check, mana_table.gm, mana_table.gather, FACES, intent="INTENT-SECRET")


def public_roll(mana_table):
    return roll_mana(
        ask(mana_table, mana_table.mira), mana_table.player, mana_table.gather, (1, 2, 3, 4)
    )


def reveal(mana_table, client, entry, **extra):
    return client.post(url("roll_reveal", mana_table, entry.seq), **extra)


def leaks(html, entry):
    """What of the secret roll ``html`` shows: none of it may reach a player before the reveal."""
    found = [text for text in ("NOTE-SECRET", "INTENT-SECRET", entry.data["salt"]) if text in html]
    if re.search(r'class="die|success|failure', html):
        found.append("the dice")
    return found


# The commitment ---------------------------------------------------------------------------------


def test_a_secret_roll_is_sealed_with_a_commitment_to_its_result(mana_table):
    entry = secret_roll(mana_table)
    data = entry.data
    assert re.fullmatch(r"[0-9a-f]{32}", data["salt"])
    result = chain.result_of(data)
    assert result["faces"] == list(FACES) and "salt" not in result
    assert data["commitment"] == chain.commitment(result, data["salt"])
    preimage = f"{data['salt']}:{chain.canonical(result)}"
    assert data["commitment"] == hashlib.sha256(preimage.encode()).hexdigest()
    assert entry.hash == entry.compute_hash()  # the seal is under the chain


def test_public_and_private_rolls_have_no_commitment(mana_table):
    assert "commitment" not in public_roll(mana_table).data


def test_the_salt_is_fresh_for_every_roll(mana_table):
    first, second = secret_roll(mana_table), secret_roll(mana_table)
    assert first.data["salt"] != second.data["salt"]
    assert first.data["commitment"] != second.data["commitment"]


def test_every_player_receives_the_commitment_at_once_and_nothing_more(mana_table):
    entry = secret_roll(mana_table)
    message = push.entry_message(entry)
    stub = message["all"]
    assert entry.data["commitment"][:16] in stub
    assert leaks(stub, entry) == []
    assert "Reveal" not in stub
    assert 'class="die' in message["gm"] and "Reveal" in message["gm"]
    assert entry.data["salt"] not in message["gm"]


def test_the_room_shows_players_the_commitment_and_the_gm_the_reveal_button(
    mana_table, as_user, gm, player
):
    entry = secret_roll(mana_table)
    html = as_user(player).get(url("room", mana_table)).content.decode()
    shown = entry_html(html, entry.seq)
    assert entry.data["commitment"][:16] in shown
    assert leaks(html, entry) == []
    html = as_user(gm).get(url("room", mana_table)).content.decode()
    assert url("roll_reveal", mana_table, entry.seq) in entry_html(html, entry.seq)


# The reveal -------------------------------------------------------------------------------------


def test_the_gm_reveals_a_secret_roll_to_everyone(
    mana_table, as_user, gm, player, pushes, django_capture_on_commit_callbacks
):
    entry = secret_roll(mana_table)
    with django_capture_on_commit_callbacks(execute=True):
        response = reveal(mana_table, as_user(gm), entry, **HTMX)
    assert response.status_code == 200
    assert "Revealed as #2" in response.content.decode()

    revealed = LogEntry.objects.get(campaign=mana_table.campaign, seq=2)
    entry.refresh_from_db()
    assert (revealed.kind, revealed.visibility, revealed.actor) == (
        LogEntry.REVEAL,
        PUBLIC,
        mana_table.gm,
    )
    assert revealed.character == mana_table.npc and revealed.check_ref is None
    assert revealed.data == {
        "of": entry.seq,
        "result": chain.result_of(entry.data),
        "salt": entry.data["salt"],
        "commitment": entry.data["commitment"],
    }
    assert revealed.reveal_matches
    [message] = pushes.entries()
    assert set(message) == {"seq", "prev_seq", "all"}  # the same for everyone
    for html in (message["all"], as_user(player).get(url("room", mana_table)).content.decode()):
        shown = entry_html(html, revealed.seq)
        assert "INTENT-SECRET" in shown and "NOTE-SECRET" in shown
        assert 'class="die' in shown and "success" in shown
        assert entry.data["salt"] in shown and entry.data["commitment"] in shown
        assert "matches the commitment" in shown
        assert "does not match" not in shown
    assert services.log_verify(mana_table.campaign) is None


def test_a_revealed_roll_stays_a_stub_and_loses_its_button(mana_table, as_user, gm, player):
    entry = secret_roll(mana_table)
    reveal(mana_table, as_user(gm), entry, **HTMX)
    html = as_user(player).get(url("room", mana_table)).content.decode()
    assert 'class="die' not in entry_html(html, entry.seq)
    html = as_user(gm).get(url("room", mana_table)).content.decode()
    assert url("roll_reveal", mana_table, entry.seq) not in html


def test_a_plain_post_reveals_and_goes_back_to_the_room(mana_table, as_user, gm):
    entry = secret_roll(mana_table)
    response = reveal(mana_table, as_user(gm), entry)
    assert response.status_code == 302 and response.url == url("room", mana_table)
    assert LogEntry.objects.filter(kind=LogEntry.REVEAL).count() == 1


def test_a_reveal_that_does_not_match_says_so(mana_table, as_user, gm, player):
    entry = secret_roll(mana_table)
    reveal(mana_table, as_user(gm), entry, **HTMX)
    revealed = LogEntry.objects.get(kind=LogEntry.REVEAL)
    revealed.data["result"]["faces"] = [1, 1, 1, 1]
    revealed.hash = revealed.compute_hash()  # someone with the key: the chain cannot tell
    LogEntry.objects.filter(pk=revealed.pk).update(data=revealed.data, hash=revealed.hash)
    html = as_user(player).get(url("room", mana_table)).content.decode()
    assert "does not match the commitment" in entry_html(html, revealed.seq)


@pytest.mark.parametrize("who, status", [("player", 403), ("outsider", 404), (None, 302)], ids=str)
def test_only_the_gm_reveals(mana_table, as_user, outsider, who, status, pushes):
    entry = secret_roll(mana_table)
    user = {"player": mana_table.player, "outsider": outsider, None: None}[who]
    assert reveal(mana_table, as_user(user), entry, **HTMX).status_code == status
    assert not LogEntry.objects.filter(kind=LogEntry.REVEAL).exists()
    assert pushes.sent == []


def test_reveal_is_post_only(mana_table, as_user, gm):
    entry = secret_roll(mana_table)
    assert as_user(gm).get(url("roll_reveal", mana_table, entry.seq)).status_code == 405


@pytest.mark.parametrize(
    "target, error",
    [
        ("public", "Only a GM-secret roll can be revealed."),
        ("missing", "Only a GM-secret roll can be revealed."),
        ("twice", "This roll is already revealed."),
        ("unsealed", "it has none"),
    ],
)
def test_what_cannot_be_revealed_is_refused(
    mana_table, as_user, gm, pushes, django_capture_on_commit_callbacks, target, error
):
    client = as_user(gm)
    seq = {"public": lambda: public_roll(mana_table).seq, "missing": lambda: 99}.get(
        target, lambda: 0
    )()
    if target == "twice":
        seq = secret_roll(mana_table).seq
        reveal(mana_table, client, LogEntry.objects.get(seq=seq), **HTMX)
        pushes.sent.clear()
    if target == "unsealed":  # a secret roll from before commitments
        entry = secret_roll(mana_table)
        data = chain.result_of(entry.data)
        LogEntry.objects.filter(pk=entry.pk).update(data=data)
        seq = entry.seq
    before = LogEntry.objects.count()
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(url("roll_reveal", mana_table, seq), **HTMX)
    assert response.status_code == 422
    assert error in response.content.decode().replace("&#x27;", "'")
    assert LogEntry.objects.count() == before and pushes.sent == []


def test_a_refused_plain_post_shows_the_room_with_the_refusal(mana_table, as_user, gm):
    entry = public_roll(mana_table)
    response = as_user(gm).post(url("roll_reveal", mana_table, entry.seq))
    assert response.status_code == 200
    html = response.content.decode()
    assert "Only a GM-secret roll can be revealed." in html and 'id="log"' in html


def test_the_service_refuses_anyone_but_the_gm(mana_table):
    entry = secret_roll(mana_table)
    with raises_refused(match="Only the GM"):
        services.roll_reveal(campaign=mana_table.campaign, seq=entry.seq, by=mana_table.player)


# Verification -----------------------------------------------------------------------------------


def resign(entry, data):
    """Change an entry's data and sign it again with the key: only the commitments can tell."""
    entry.data = data
    entry.hash = entry.compute_hash()
    LogEntry.objects.filter(pk=entry.pk).update(data=data, hash=entry.hash)
    return entry


def resign_all(campaign):
    """Re-chain the whole log with the key after an edit (what the key's holder can do)."""
    prev = chain.GENESIS
    for entry in LogEntry.objects.filter(campaign=campaign):
        entry.prev_hash = prev
        entry.hash = entry.compute_hash()
        LogEntry.objects.filter(pk=entry.pk).update(prev_hash=prev, hash=entry.hash)
        prev = entry.hash
    type(campaign).objects.filter(pk=campaign.pk).update(head_hash=prev)


def test_log_verify_checks_each_commitment_against_its_result(mana_table):
    entry = secret_roll(mana_table)
    resign(entry, {**entry.data, "faces": [1, 1, 1, 1]})
    resign_all(mana_table.campaign)
    problem = services.log_verify(mana_table.campaign)
    assert (problem.seq, problem.what) == (1, "altered")
    assert "commitment does not match its result" in problem.why


@pytest.mark.parametrize("field", ["result", "salt", "commitment", "of"])
def test_log_verify_checks_every_reveal_against_the_commitment_shown_before(
    mana_table, as_user, gm, field
):
    entry = secret_roll(mana_table)
    public_roll(mana_table)
    reveal(mana_table, as_user(gm), entry, **HTMX)
    revealed = LogEntry.objects.get(kind=LogEntry.REVEAL)
    data = dict(revealed.data)
    if field == "result":
        data["result"] = {**data["result"], "faces": [1, 1, 1, 1]}
        data["commitment"] = chain.commitment(data["result"], data["salt"])  # self-consistent
    elif field == "salt":
        data["salt"] = "0" * 32
    elif field == "commitment":
        data["commitment"] = "0" * 64
    else:
        data["of"] = 2
    resign(revealed, data)
    resign_all(mana_table.campaign)
    problem = services.log_verify(mana_table.campaign)
    assert (problem.seq, problem.what) == (revealed.seq, "altered")
    assert "reveal" in problem.why or "commitment" in problem.why


def test_a_pool_secret_roll_is_revealed_too(pool_table, pushes, django_capture_on_commit_callbacks):
    check = ask(pool_table, pool_table.npc, visibility=SECRET, note="NOTE-SECRET")
    strength = pool_table.npc.ratings.get(attribute="Strength", skill="")
    entry = pool_services.check_roll_pool(
        check=check, by=pool_table.gm, attribute=strength, rng=ScriptedRng(6, 2, 5, 1, 3)
    )
    assert leaks(push.entry_message(entry)["all"], entry) == []
    with django_capture_on_commit_callbacks(execute=True):
        revealed = services.roll_reveal(
            campaign=pool_table.campaign, seq=entry.seq, by=pool_table.gm
        )
        push.push_entry_on_commit(revealed)
    [message] = pushes.entries()
    shown = entry_html(message["all"], revealed.seq)
    assert "Strength 4" in shown and "NOTE-SECRET" in shown and 'class="die d6"' in shown
    assert "matches the commitment" in shown
    assert services.log_verify(pool_table.campaign) is None
