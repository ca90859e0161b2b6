"""Table talk and free rolls in the room (room.views.talk_say, talk_odds): what each member
may say and roll, where it shows and where it must not, refusals that change and push nothing,
and the log's proofs over them."""

import json
import re
from fractions import Fraction

import pytest
from django.urls import reverse

from rolls import services
from rolls.models import PRIVATE, PUBLIC, SECRET, WHISPER, LogEntry
from room.push import entry_message
from rules import notation
from tests.helpers import HTMX, db_snapshot
from tests.rolls.room_setup import refused, script_dice

TABLES = ["mana_table", "pool_table"]


@pytest.fixture(params=TABLES)
def table(request):
    """Both systems: table talk and free rolls are the same in each."""
    return request.getfixturevalue(request.param)


def say(client, table, text, **headers):
    path = reverse("talk_say", args=[table.campaign.pk])
    return client.post(path, {"text": text}, **headers)


def last_entry(table):
    return LogEntry.objects.filter(campaign=table.campaign).order_by("-seq", "-sub").first()


def room_html(client, table):
    return client.get(reverse("room", args=[table.campaign.pk])).content.decode()


def shows(text, notation):
    """The dice notation as itself, not as a piece of a fingerprint or a commitment (hex digits,
    where "5d8" turns up now and then)."""
    return re.search(rf"(?<![0-9a-f]){re.escape(notation)}(?![0-9a-f])", text) is not None


# Messages and whispers ---------------------------------------------------------------------------


def test_a_message_is_logged_chained_and_shown_to_everyone(
    table, as_user, gm, player, other_player
):
    response = say(as_user(player), table, "Hello <b>table</b>", **HTMX)
    assert response.status_code == 200
    assert 'id="talk-text"' in response.content.decode()  # the box, emptied
    entry = last_entry(table)
    assert (entry.kind, entry.visibility, entry.actor, entry.data) == (
        LogEntry.MESSAGE,
        PUBLIC,
        player,
        {"text": "Hello <b>table</b>"},
    )
    assert entry.hash == entry.compute_hash()
    assert services.log_verify(table.campaign) is None
    for user in (gm, player, other_player):
        html = room_html(as_user(user), table)
        assert "Hello &lt;b&gt;table&lt;/b&gt;" in html and "<b>table</b>" not in html


def test_a_whisper_reaches_its_two_ends_and_nobody_else_not_even_the_gm(
    table, as_user, gm, player, other_player, pushes, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = say(as_user(player), table, "/w ben WHISPER-TEXT", **HTMX)
    assert response.status_code == 200
    entry = last_entry(table)
    assert (entry.visibility, entry.recipient, entry.data) == (
        WHISPER,
        other_player,
        {"text": "WHISPER-TEXT"},
    )
    [(_campaign, message)] = [(c, m) for c, m in pushes.sent if m.get("seq") == entry.seq]
    assert message["all"] == "" and "gm" not in message
    assert (message["seq"], message["sub"], message["prev_seq"]) == (0, 1, 0)  # after no entry
    assert set(message["users"]) == {str(player.pk), str(other_player.pk)}
    assert "WHISPER-TEXT" in message["users"][str(other_player.pk)]
    assert f'data-to="{other_player.pk}"' in message["users"][str(other_player.pk)]
    assert "WHISPER-TEXT" in room_html(as_user(player), table)
    assert "WHISPER-TEXT" in room_html(as_user(other_player), table)
    gm_room = room_html(as_user(gm), table)
    assert "WHISPER-TEXT" not in gm_room and f'id="{entry.anchor}"' not in gm_room
    assert services.log_verify(table.campaign) is None


def test_a_whisper_takes_no_number_so_nobody_else_sees_a_gap(
    table, as_user, gm, player, other_player
):
    """Ana whispers to Ben between two messages: the GM's page shows #1 and #2, nothing between
    them; Ana's and Ben's show the whisper after #1, with an id of its own (its fingerprint).
    Each page's socket resumes after the last number it shows."""
    for user, text in ((player, "ONE"), (player, "/w ben PSST"), (gm, "TWO")):
        assert say(as_user(user), table, text, **HTMX).status_code == 200
    psst = LogEntry.objects.get(campaign=table.campaign, visibility=WHISPER)
    assert (psst.seq, psst.sub, psst.number) == (1, 1, "1+")
    gm_room = room_html(as_user(gm), table)
    assert 'data-seq="1"' in gm_room and 'data-seq="2"' in gm_room
    assert "data-whisper" not in gm_room and "PSST" not in gm_room and "#1+" not in gm_room
    for user in (player, other_player):
        html = room_html(as_user(user), table)
        tag = f'<article id="entry-1-{psst.fingerprint}" class="entry message" data-seq="1" '
        tag += f'data-from="{player.pk}" data-to="{other_player.pk}" data-whisper>'
        assert tag in html
        assert html.index('id="entry-1"') < html.index(tag) < html.index('id="entry-2"')
        assert f"fingerprint #1+ {psst.fingerprint}" in html and "?after=2" in html
        assert "data-sub" not in html and "1.1" not in html


def test_a_whisper_shows_nothing_of_the_whispers_before_it(
    table, as_user, gm, player, other_player
):
    """Ana whispers to Ben, then Ben to the GM, after the same number: the GM sees Ben's
    whisper exactly as if it were the first one after #1 (the server's count of whispers after
    a number, ``LogEntry.sub``, never leaves it), in the page, the push and the export."""
    say(as_user(player), table, "ONE", **HTMX)
    say(as_user(player), table, "/w ben FIRST", **HTMX)
    say(as_user(other_player), table, "/w gm SECOND", **HTMX)
    second = last_entry(table)
    assert (second.seq, second.sub) == (1, 2)
    shown = f'<article id="entry-1-{second.fingerprint}" class="entry message" data-seq="1" '
    shown += f'data-from="{other_player.pk}" data-to="{gm.pk}" data-whisper>'
    html = room_html(as_user(gm), table)
    assert shown in html and f"#1+ {second.fingerprint}" in html and "FIRST" not in html
    assert "1.2" not in html and "-2" not in html.split(shown)[1].split("</article>")[0]
    assert entry_message(second)["users"][str(gm.pk)].count("<article") == 1
    assert shown in entry_message(second)["users"][str(gm.pk)]
    csv = as_user(gm).get(reverse("log_csv", args=[table.campaign.pk]))
    text = b"".join(csv.streaming_content).decode()
    assert text.splitlines()[0].startswith("seq,time,") and ",sub," not in text.splitlines()[0]
    assert "SECOND" in text and "FIRST" not in text


def test_older_entries_are_paged_by_numbers_with_their_whispers(
    table, as_user, gm, player, other_player
):
    """A page of the log starts at a number: the viewer's whispers after the first number it
    shows all come with it, so that the next page ends at that number (``?before=55``)."""
    campaign = table.campaign
    for n in range(1, 56):
        services.message_send(campaign=campaign, by=gm, text=f"M{n}.")
    for n in range(1, 61):
        services.message_send(campaign=campaign, by=player, text=f"W{n}.", to=other_player)
    services.message_send(campaign=campaign, by=gm, text="M56.")
    ben = room_html(as_user(other_player), table)
    assert ben.count('<article id="entry-') == 62  # #55, its 60 whispers, #56
    assert "W1." in ben and "W60." in ben and "M55." in ben and "M54." not in ben
    log = reverse("room_log", args=[campaign.pk])
    assert f"{log}?before=55" in ben
    older = as_user(other_player).get(log, {"before": "55"}).content.decode()
    assert older.count('<article id="entry-') == 50 and "M5." in older and "M54." in older
    assert "W1." not in older and f"{log}?before=5" in older
    gm_room = room_html(as_user(gm), table)
    assert gm_room.count('<article id="entry-') == 50 and "M7." in gm_room and "W1." not in gm_room
    assert as_user(other_player).get(log, {"before": "1.5"}).status_code == 400


def test_the_gms_fingerprint_is_not_moved_by_a_whisper_between_players(
    table, as_user, gm, player, other_player
):
    for user, text in ((player, "ONE"), (gm, "TWO"), (player, "/w ben PSST")):
        say(as_user(user), table, text, **HTMX)
    two = LogEntry.objects.get(campaign=table.campaign, seq=2, sub=0)
    html = as_user(gm).get(reverse("verify_log", args=[table.campaign.pk])).content.decode()
    assert "The log is whole." in html and "Every entry is signed" in html
    assert f"#2 <code>{two.hash[:12]}</code>" in html and "#2+" not in html


def test_a_whisper_to_the_gm(table, as_user, gm, player, other_player):
    assert say(as_user(player), table, "/w gm I pick the lock quietly", **HTMX).status_code == 200
    entry = last_entry(table)
    assert (entry.visibility, entry.recipient) == (WHISPER, gm)
    assert "I pick the lock quietly" in room_html(as_user(gm), table)
    assert "I pick the lock" not in room_html(as_user(other_player), table)


def test_the_gm_whispers_to_a_player(table, as_user, gm, player, other_player):
    assert say(as_user(gm), table, "/w ana You hear a click", **HTMX).status_code == 200
    assert last_entry(table).recipient == player
    assert "You hear a click" in room_html(as_user(player), table)
    assert "You hear a click" not in room_html(as_user(other_player), table)


def test_a_mention_marks_the_members_called(table, as_user, gm, player, other_player):
    say(as_user(player), table, "@ben and @GM, look @nobody", **HTMX)
    entry = last_entry(table)
    assert entry.data["mentions"] == sorted([gm.pk, other_player.pk])
    html = room_html(as_user(other_player), table)
    assert f'data-to="{min(gm.pk, other_player.pk)} {max(gm.pk, other_player.pk)}"' in html
    assert f'data-from="{player.pk}"' in html


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("", "Type a message"),
        ("x" * 501, "at most 500"),
        ("/w zed psst", "Nobody called"),
        ("/w ana psst", "someone else"),
        ("/dance", "no /dance"),
        ("/sr 1d6", "Only the GM"),
        ("/r 2d", ""),
        ("/r 1000d1000000", ""),
        ("/r " + "(" * 30 + "1" + ")" * 30, ""),
    ],
)
def test_bad_input_is_refused_and_changes_and_pushes_nothing(
    table, as_user, player, pushes, django_capture_on_commit_callbacks, text, word
):
    path = reverse("talk_say", args=[table.campaign.pk])
    html = refused(
        as_user(player),
        path,
        {"text": text},
        table.campaign,
        pushes,
        django_capture_on_commit_callbacks,
    )
    assert 'role="alert"' in html
    assert word.lower() in html.lower()


def test_a_plain_post_is_redirected_or_shown_the_room_with_the_refusal(table, as_user, player):
    response = say(as_user(player), table, "plain hello")
    assert response.status_code == 302 and response.url == reverse("room", args=[table.campaign.pk])
    before = db_snapshot()
    response = say(as_user(player), table, "/w zed psst")
    assert response.status_code == 200
    html = response.content.decode()
    assert 'id="room"' in html and "Nobody called" in html
    assert db_snapshot() == before


def test_outsiders_cannot_talk_or_preview(table, as_user, outsider):
    assert say(as_user(outsider), table, "hi", **HTMX).status_code == 404
    path = reverse("talk_odds", args=[table.campaign.pk])
    assert as_user(outsider).get(path, {"text": "/r d6"}).status_code == 404


# Free rolls --------------------------------------------------------------------------------------


def test_a_free_roll_with_a_target_logs_its_dice_and_exact_chance(
    table, as_user, player, monkeypatch
):
    script_dice(monkeypatch, 6, 5)
    assert say(as_user(player), table, "/r 2d6+3 vs 12", **HTMX).status_code == 200
    entry = last_entry(table)
    data = entry.data
    assert (entry.kind, entry.visibility, entry.character) == (LogEntry.FREE, PUBLIC, None)
    assert (data["expression"], data["total"], data["target"], data["success"]) == (
        "2d6+3",
        14,
        12,
        True,
    )
    # P(2d6 >= 9) = 10/36, counted independently.
    ways = sum(1 for a in range(1, 7) for b in range(1, 7) if a + b + 3 >= 12)
    assert Fraction(data["chance"]) == Fraction(ways, 36)
    assert (entry.success, entry.target, entry.chance) == (True, 12, data["chance"])
    assert services.log_verify(table.campaign) is None
    html = room_html(as_user(player), table)
    assert "2d6+3" in html and "27.8%" in html


def test_a_free_roll_whose_fraction_is_long_keeps_its_approximation(
    table, as_user, player, monkeypatch
):
    """100 d1000 keeping the lowest, against 1000: (1/1000)**100, terms of 301 digits, kept as
    a marked decimal (``rules.odds``) and read back the same in its preview, its entry and luck."""
    client = as_user(player)
    preview = client.get(
        reverse("talk_odds", args=[table.campaign.pk]), {"text": "/r 100d1000kl1 vs 1000"}
    )
    assert '<b class="chance">&lt;0.1%</b> to reach 1000' in preview.content.decode()
    script_dice(monkeypatch, *[1000] * 100)
    assert say(client, table, "/r 100d1000kl1 vs 1000", **HTMX).status_code == 200
    entry = last_entry(table)
    assert entry.data["success"] is True and entry.chance == entry.data["chance"] == "~1e-300"
    assert ",~1e-300,1e-300," in entry.cells
    assert services.log_verify(table.campaign) is None
    luck = client.get(reverse("campaign_luck", args=[table.campaign.pk])).content.decode()
    assert "unusually lucky" in luck


def test_a_free_roll_without_a_target_has_no_chance(table, as_user, player, monkeypatch):
    script_dice(monkeypatch, 4, 2, 6, 1)
    say(as_user(player), table, "/r 4d6kh3", **HTMX)
    entry = last_entry(table)
    assert entry.data["total"] == 12 and "chance" not in entry.data
    assert entry.success is None and entry.chance == ""


def test_a_private_free_roll_is_a_stub_for_other_players(table, as_user, gm, player, other_player):
    say(as_user(player), table, "/gr 5d8 vs 20", **HTMX)
    entry = last_entry(table)
    assert entry.visibility == PRIVATE
    other = room_html(as_user(other_player), table)
    assert "rolled privately" in other and not shows(other, "5d8")
    assert shows(room_html(as_user(gm), table), "5d8")
    message = entry_message(entry)
    assert shows(message["gm"], "5d8") and shows(message["users"][str(player.pk)], "5d8")
    assert not shows(message["all"], "5d8")


def test_the_gms_secret_free_roll_is_committed_and_revealed(table, as_user, gm, player):
    assert say(as_user(gm), table, "/sr 1d20 vs 15", **HTMX).status_code == 200
    secret = last_entry(table)
    assert secret.visibility == SECRET and secret.commitment
    html = room_html(as_user(player), table)
    assert "rolled in secret" in html and secret.commitment[:8] in html and not shows(html, "1d20")
    response = as_user(gm).post(
        reverse("roll_reveal", args=[table.campaign.pk, secret.seq]), **HTMX
    )
    assert response.status_code == 200
    reveal = last_entry(table)
    assert reveal.kind == LogEntry.REVEAL and reveal.reveal_matches
    html = room_html(as_user(player), table)
    assert "matches the commitment" in html and "1d20" in html
    assert services.log_verify(table.campaign) is None


def test_the_odds_preview_says_the_exact_chance_before_rolling(table, as_user, player):
    path = reverse("talk_odds", args=[table.campaign.pk])
    client = as_user(player)
    html = client.get(path, {"text": "/r 1d20 vs 11"}).content.decode()
    assert "50.0%" in html and "1d20" in html
    assert "add “vs 12”" in client.get(path, {"text": "/r 2d6"}).content.decode()
    # A message or a whisper is never previewed: nothing of it is answered.
    whisper = client.get(path, {"text": "/w ben the secret"}).content.decode()
    assert "secret" not in whisper and "ben" not in whisper
    assert client.get(path, {"text": "/w zed hi"}).content.decode().strip() == ""
    assert 'class="error"' in client.get(path, {"text": "/r 2d"}).content.decode()
    assert client.get(path, {"text": "hello"}).status_code == 200


def test_a_preview_costing_more_than_a_preview_may_says_so_and_the_roll_gives_the_odds(
    pool_table, as_user, player, monkeypatch
):
    """The issue's ``/r 50d2!>=2 vs 238``: accepted (its odds cost less than a roll's most) but
    costlier than a preview may be, so the preview works nothing out (a player asks one a
    keystroke); the roll itself logs its exact chance."""
    typed = notation.parse("50d2!>=2 vs 238")
    assert notation.MAX_PREVIEW_COST < notation.chance_cost(typed) <= notation.MAX_CHANCE_COST
    exact = notation.chance(typed)
    real = notation.chance

    def not_in_a_preview(_):
        raise AssertionError("worked out in a preview")

    monkeypatch.setattr(notation, "chance", not_in_a_preview)
    path = reverse("talk_odds", args=[pool_table.campaign.pk])
    client = as_user(player)
    html = client.get(path, {"text": "/r 50d2!>=2 vs 238"}, **HTMX).content.decode()
    assert "Rolls <code>50d2!&gt;=2</code>" in html
    assert "the chance to reach 238 takes too long to work out before the roll" in html
    assert 'class="chance"' not in html and 'class="error"' not in html
    monkeypatch.setattr(notation, "chance", real)
    assert say(client, pool_table, "/r 50d2!>=2 vs 238", **HTMX).status_code == 200
    entry = last_entry(pool_table)
    assert (entry.data["expression"], entry.data["target"]) == ("50d2!>=2", 238)
    assert Fraction(entry.data["chance"]) == exact


# The log's proofs and what it tells ---------------------------------------------------------


def test_verify_finds_an_altered_message_or_recipient(table, as_user, player, other_player, gm):
    say(as_user(player), table, "/w ben psst", **HTMX)
    entry = last_entry(table)
    LogEntry.objects.filter(pk=entry.pk).update(recipient=gm)
    problem = services.log_verify(table.campaign)
    assert problem and problem.seq == entry.seq and problem.what == "altered"
    LogEntry.objects.filter(pk=entry.pk).update(recipient=other_player, data={"text": "other"})
    assert services.log_verify(table.campaign).seq == entry.seq


def test_verify_finds_a_free_rolls_changed_outcome(table, as_user, player, monkeypatch):
    script_dice(monkeypatch, 1, 1)
    say(as_user(player), table, "/r 2d6 vs 10", **HTMX)
    entry = last_entry(table)
    LogEntry.objects.filter(pk=entry.pk).update(success=True)
    assert services.log_verify(table.campaign).seq == entry.seq


def export(client, table, kind):
    response = client.get(reverse(f"log_{kind}", args=[table.campaign.pk]))
    return response.getvalue().decode()


def test_exports_carry_talk_and_free_rolls_but_never_anothers_whisper(
    table, as_user, gm, player, other_player, monkeypatch
):
    script_dice(monkeypatch, 6, 6)
    say(as_user(player), table, "/r 2d6 vs 7", **HTMX)
    say(as_user(player), table, "PUBLIC-WORDS", **HTMX)
    say(as_user(player), table, "/w ben WHISPER-WORDS", **HTMX)
    for user, sees in ((player, True), (other_player, True), (gm, False)):
        client = as_user(user)
        csv = export(client, table, "csv")
        assert "PUBLIC-WORDS" in csv and "2d6" in csv
        assert ("WHISPER-WORDS" in csv) is sees
        log = json.loads(export(client, table, "json"))
        kinds = [entry["kind"] for entry in log["entries"]]
        assert kinds.count("message") == (2 if sees else 1)
        free = next(entry for entry in log["entries"] if entry["kind"] == "free_roll")
        assert (free["result"], free["target"], free["success"]) == (12, 7, True)
        # The whisper carries the number before it; the rest numbered one after the other.
        numbers = [(entry["seq"], entry["visibility"]) for entry in log["entries"]]
        assert [seq for seq, _ in numbers] == ([1, 2, 2] if sees else [1, 2])
        assert log["fingerprint"].startswith("#2+ " if sees else "#2 ")


def test_luck_counts_free_rolls_with_a_target_only(table, as_user, player, monkeypatch):
    from insights.reports import luck

    for faces, text in (((6, 6), "/r 2d6 vs 7"), ((1, 1), "/r 2d6 vs 7"), ((3,), "/r 1d6")):
        script_dice(monkeypatch, *faces)
        say(as_user(player), table, text, **HTMX)
    found = luck(table.campaign, player.pk)
    assert found.total.rolls == 2
    assert found.total.observed == 1
    assert found.total.expected == 2 * Fraction(21, 36)
    [free] = [row for row in found.characters if row.label == "Free rolls"]
    assert free.tally.rolls == 2
    assert (
        "Free rolls"
        in as_user(player).get(reverse("campaign_luck", args=[table.campaign.pk])).content.decode()
    )


# At once ------------------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_talk_and_free_rolls_at_once_chain_whole_and_number_whispers_apart(
    pool_table, gm, player, other_player, pushes, settings
):
    """Real requests, eight at a time (messages, whispers and free rolls of three members): the
    log stays one whole chain, the entries but whispers numbered one after the other, each
    whisper after the number before it, and the head is the last entry (on both databases: the
    suite runs on SQLite and on PostgreSQL)."""
    from django.test import Client

    from tests.helpers import race
    from tests.rolls.room_setup import assert_whole

    settings.WRITE_LIMITS = {}
    texts = ["hello", "/w ben psst", "/r 2d6 vs 7", "/w gm quiet", "/gr 1d20", "@ana hi"]

    def post(user, text):
        client = Client()
        client.force_login(user)

        def send():
            response = say(client, pool_table, text, **HTMX)
            assert response.status_code == 200, response.content.decode()

        return send

    works = [post(player, texts[n]) for n in range(4)]
    works += [post(other_player, "/r 1d6"), post(gm, "/w ana ok"), post(gm, "/sr 1d4")]
    works += [post(other_player, "/w gm yes")]
    outcomes = race(*works)
    assert outcomes == [None] * len(works), outcomes
    entries = assert_whole(pool_table, 8)
    pool_table.campaign.refresh_from_db()
    # Four numbers for everyone, four whispers numbered after them; the head the last entry.
    assert [e.sub for e in entries].count(0) == 4
    assert [e.visibility for e in entries].count(WHISPER) == 4
    last = entries[-1]
    campaign = pool_table.campaign
    assert (campaign.last_seq, campaign.last_sub, campaign.head_hash) == (*last.place, last.hash)


def test_verify_rolls_covers_talk_and_free_rolls(table, as_user, gm, player, monkeypatch):
    from io import StringIO

    from django.core.management import CommandError, call_command

    for text in ("hello", "/w gm psst", "/r 2d6 vs 7", "/gr 1d6"):
        say(as_user(player), table, text, **HTMX)
    say(as_user(gm), table, "/sr 1d20 vs 10", **HTMX)
    out = StringIO()
    call_command("verify_rolls", campaign=table.campaign.pk, stdout=out)
    assert "is whole: 5 entries" in out.getvalue()
    whisper = LogEntry.objects.get(campaign=table.campaign, seq=2)
    LogEntry.objects.filter(pk=whisper.pk).update(data={"text": "changed"})
    with pytest.raises(CommandError, match="entry #2 was altered"):
        call_command("verify_rolls", campaign=table.campaign.pk)


def test_a_sessions_summary_lists_free_rolls_with_a_target_as_luck_counts_them(
    table, as_user, gm, player, other_player, monkeypatch
):
    services.session_start(campaign=table.campaign, by=gm)
    for faces, text, user in (
        ((1, 1), "/r 2d6 vs 11", player),
        ((6,), "/r 1d6", player),
        ((6, 6), "/gr 2d6 vs 12", other_player),
    ):
        script_dice(monkeypatch, *faces)
        say(as_user(user), table, text, **HTMX)
    path = reverse("session_summary", args=[table.campaign.pk, 1])
    html = as_user(player).get(path).content.decode()
    assert "<code>2d6</code>" in html and "2 vs 11: failure" in html
    assert not shows(html, "1d6")  # no target: nothing to count
    assert "12 vs 12" not in html and "1 hidden roll not counted" in html
    gm_html = as_user(gm).get(path).content.decode()
    assert "12 vs 12: success" in gm_html and "Luckiest: <b>2d6</b> (ben)" in gm_html


# Fate dice ----------------------------------------------------------------------------------------


def test_a_fate_roll_shows_its_dice_as_signs_with_words_and_its_exact_chance(
    table, as_user, player, monkeypatch
):
    client = as_user(player)
    preview = client.get(reverse("talk_odds", args=[table.campaign.pk]), {"text": "/r 4dF+1 vs 3"})
    # P(4dF >= 2) = 15/81: 10 ways of 2, 4 of 3, 1 of 4 among the 81.
    assert '<b class="chance">18.5%</b> to reach 3' in preview.content.decode()
    script_dice(monkeypatch, 1, 2, 3, 3)
    assert say(client, table, "/r 4dF+1 vs 3", **HTMX).status_code == 200
    entry = last_entry(table)
    assert (entry.data["expression"], entry.data["total"], entry.data["success"]) == (
        "4df+1",
        2,
        False,
    )
    assert Fraction(entry.data["chance"]) == Fraction(15, 81)
    assert services.log_verify(table.campaign) is None
    html = room_html(client, table)
    faces = (("minus", "minus", "−"), ("blank", "blank", ""), ("plus", "plus", "+"))
    for name, word, sign in faces:
        assert (
            f'<span class="die fate {name}"><span class="sr-only">{word}</span>'
            f'<span aria-hidden="true">{sign}</span></span>'
        ) in html


@pytest.mark.parametrize("text", ["/r 0dF", "/r 1000dF", "/r 101dF", "/r 4dF!", "/r 4dF>=1"])
def test_fate_dice_beyond_the_notations_limits_are_refused(
    table, as_user, player, text, pushes, django_capture_on_commit_callbacks
):
    path = reverse("talk_say", args=[table.campaign.pk])
    client = as_user(player)
    html = refused(
        client, path, {"text": text}, table.campaign, pushes, django_capture_on_commit_callbacks
    )
    assert 'class="error"' in html or "error" in html
    preview = client.get(reverse("talk_odds", args=[table.campaign.pk]), {"text": text})
    assert preview.status_code == 200 and 'class="error"' in preview.content.decode()
