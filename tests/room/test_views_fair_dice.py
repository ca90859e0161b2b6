"""The fair-dice page (room.views.dice_page) and the GM's early reveal (dice_reveal): what each
member sees of the seeds and the rolls, what stays hidden, and what every room hears."""

from django.urls import reverse

from rolls import services
from rolls.dice import seed_open
from rolls.models import DiceSeed, LogEntry
from rolls.systems.pool import services as pool_services
from tests.helpers import HTMX
from tests.rolls.room_setup import ask

CONTRIBUTION = "0123456789abcdef0123456789abcdef"


def dice_url(table):
    return reverse("dice", args=[table.campaign.id])


def reveal_url(table):
    return reverse("dice_reveal", args=[table.campaign.id])


def roll(table, character, by, attribute, visibility="public", contribution=CONTRIBUTION):
    check = ask(table, character, target=5, visibility=visibility)
    return pool_services.check_roll_pool(
        check=check, by=by, attribute=attribute, contribution=contribution
    )


def test_a_member_sees_the_open_commitment_and_never_the_open_seed(pool_table, as_user, player):
    seed = seed_open(pool_table.campaign)
    html = as_user(player).get(dice_url(pool_table)).content.decode()
    assert seed.commitment in html and seed.seed not in html
    assert "Reveal the seed now" not in html  # the GM's


def test_a_revealed_seed_shows_its_rolls_for_the_page_to_check(pool_table, as_user, player, gm):
    services.session_start(campaign=pool_table.campaign, by=gm)
    seed = seed_open(pool_table.campaign)
    entry = roll(pool_table, pool_table.ilse, player, pool_table.strength)
    services.session_end(campaign=pool_table.campaign, by=gm)
    html = as_user(player).get(dice_url(pool_table)).content.decode()
    assert seed.seed in html and seed.commitment in html
    assert f'data-position="{entry.seq}"' in html and f'data-contribution="{CONTRIBUTION}"' in html
    draws = entry.data["fair"]["draws"]
    assert f'data-draws="{draws}"'.replace("'", "") in html.replace("'", "")
    assert "their browser" in html
    assert 'src="/static/js/dice.js"' in html and 'src="/static/js/fair.js"' in html


def test_a_roll_hidden_from_the_viewer_is_counted_not_shown(
    pool_table, as_user, player, other_player, gm
):
    services.session_start(campaign=pool_table.campaign, by=gm)
    hidden = roll(pool_table, pool_table.tor, other_player, pool_table.tor_strength, "private")
    services.session_end(campaign=pool_table.campaign, by=gm)
    html = as_user(player).get(dice_url(pool_table)).content.decode()
    assert hidden.data["fair"]["contribution"] not in html
    assert "1 roll of this seed hidden from you" in html
    gm_html = as_user(gm).get(dice_url(pool_table)).content.decode()
    assert hidden.data["fair"]["contribution"] in gm_html  # the GM may see it: and check it


def test_an_older_seed_is_chosen_by_its_commitment(pool_table, as_user, player, gm):
    services.session_start(campaign=pool_table.campaign, by=gm)
    first = seed_open(pool_table.campaign)
    services.session_end(campaign=pool_table.campaign, by=gm)
    services.session_start(campaign=pool_table.campaign, by=gm)
    client = as_user(player)
    page = client.get(dice_url(pool_table), {"seed": first.commitment[:16]}).content.decode()
    assert f'data-seed="{first.seed}"' in page
    assert "Every revealed seed" in page
    unknown = client.get(dice_url(pool_table), {"seed": "<b>zz"}).content.decode()
    assert "<b>zz" not in unknown  # the newest revealed instead, nothing typed echoed


def test_the_gm_reveals_the_seed_early_in_the_log_and_every_room_hears_it(
    pool_table, as_user, gm, django_capture_on_commit_callbacks, monkeypatch
):
    sent = []
    monkeypatch.setattr("core.push.send", lambda campaign_id, *messages: sent.extend(messages))
    open_seed = seed_open(pool_table.campaign)
    with django_capture_on_commit_callbacks(execute=True):
        response = as_user(gm).post(reveal_url(pool_table))
    assert response.status_code == 302 and response["Location"] == dice_url(pool_table)
    open_seed.refresh_from_db()
    new = seed_open(pool_table.campaign)
    assert open_seed.revealed_at is not None and new.pk != open_seed.pk
    # The log says so, under the chain: the seed revealed and the next commitment.
    entry = LogEntry.objects.get(campaign=pool_table.campaign, kind=LogEntry.DICE)
    assert entry.data == {"seed": open_seed.seed, "dice": new.commitment}
    assert entry.actor == gm and entry.visibility == "public"
    [message] = sent
    assert "The GM revealed the dice seed" in message["all"]
    # The room's commitment is replaced with the entry's push.
    assert message["all"].endswith(f' may see."><code>{new.commitment[:16]}</code></span>')


def test_a_player_may_not_reveal_and_nothing_changes(pool_table, as_user, player):
    seed_open(pool_table.campaign)
    before = list(DiceSeed.objects.values())
    assert as_user(player).post(reveal_url(pool_table), **HTMX).status_code == 403
    assert list(DiceSeed.objects.values()) == before


def test_a_session_start_pushes_its_new_commitment_with_its_entry(pool_table, gm):
    from room.push import entry_message

    _session, entry = services.session_start(campaign=pool_table.campaign, by=gm)
    message = entry_message(entry)
    assert f"<code>{entry.data['dice'][:16]}</code>" in message["all"]
    assert entry.data["dice"] == seed_open(pool_table.campaign).commitment
