"""The log to take home (insights.views.campaign_log_csv / campaign_log_json over
insights.reports.log_export): every entry, hidden ones as stubs, members only."""

import csv
import io
import json
from datetime import UTC, datetime

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from insights import reports as insights
from rolls.models import PRIVATE, PUBLIC, SECRET, LogEntry
from rolls.systems.pool import services as pool_services
from rules import pool
from tests.insights.insight_setup import add_rolls, build_known_log
from tests.rolls.room_setup import ask, roll_mana
from tests.rules.scripted_rng import ScriptedRng


def get(client, table, name):
    return client.get(reverse(name, args=[table.campaign.id]))


def body(response):
    """The whole body of an export (which streams)."""
    return response.getvalue()


def csv_rows(client, table):
    response = get(client, table, "log_csv")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert "attachment" in response["Content-Disposition"]
    return list(csv.DictReader(io.StringIO(body(response).decode())))


def json_log(client, table):
    response = get(client, table, "log_json")
    assert response.status_code == 200 and response["Content-Type"] == "application/json"
    return json.loads(body(response))


def test_csv_for_a_player(mana_table, as_user, player):
    build_known_log(mana_table)
    rows = csv_rows(as_user(player), mana_table)
    assert [(r["seq"], r["kind"], r["hidden"]) for r in rows] == [
        ("1", "session_start", "False"),
        ("2", "roll", "False"),
        ("3", "roll", "False"),
        ("4", "roll", "True"),  # Bo's private roll
        ("5", "roll", "True"),  # the Warden's secret roll
        ("6", "session_end", "False"),
        ("7", "roll", "False"),
        ("8", "session_start", "False"),
        ("9", "roll", "False"),  # Mira's own private roll
    ]
    mira = rows[1]
    assert (mira["player"], mira["character"], mira["about"]) == (
        "ana",
        "Mira",
        "Gather Information",
    )
    assert (mira["dice"], mira["faces"], mira["result"]) == ("1d10", "8", "1 successes")
    assert (mira["target"], mira["success"], mira["chance"]) == ("1", "True", "3/10")
    assert (mira["session"], rows[6]["session"]) == ("1", "")
    bo = rows[3]
    assert (bo["player"], bo["visibility"]) == ("ben", "private")
    assert bo["character"] == bo["faces"] == bo["result"] == bo["chance"] == bo["dice"] == ""
    assert rows[8]["faces"] == "10" and rows[8]["chance"] == "1/10"


def test_a_private_roll_does_not_reach_another_players_export(mana_table, as_user, other_player):
    build_known_log(mana_table)
    rows = csv_rows(as_user(other_player), mana_table)
    mira_private = rows[8]
    assert mira_private["hidden"] == "True" and mira_private["player"] == "ana"
    assert all(mira_private[c] == "" for c in ("character", "faces", "result", "chance", "dice"))
    assert rows[3]["faces"] == "10" and rows[3]["hidden"] == "False"  # ben's own private roll
    log = json_log(as_user(other_player), mana_table)
    entry = log["entries"][8]
    assert entry["hidden"] is True and entry["data"] is None and entry["faces"] == ""
    last = LogEntry.objects.filter(campaign=mana_table.campaign).order_by("seq").last()
    assert log["fingerprint"] == f"#{last.seq} {last.hash[:12]}"  # as the room shows it
    assert (
        entry["fingerprint"] == LogEntry.objects.get(campaign=mana_table.campaign, seq=9).hash[:12]
    )


def test_json_for_the_gm_has_everything_and_the_fingerprint(mana_table, as_user, gm):
    build_known_log(mana_table)
    log = json_log(as_user(gm), mana_table)
    assert (log["campaign"], log["system"]) == ("Blue Harbor", "mana")
    assert [e["hidden"] for e in log["entries"]] == [False] * 9
    warden = log["entries"][4]
    assert warden["character"] == "The Warden" and warden["data"]["faces"] == [1]
    assert warden["chance"] == "3/10" and warden["visibility"] == "secret"
    last = LogEntry.objects.filter(campaign=mana_table.campaign).order_by("seq").last()
    assert log["fingerprint"] == f"#{last.seq} {last.hash[:12]}"


def test_pool_rolls_name_the_pool_and_chains(pool_table, as_user, player):
    check = ask(pool_table, pool_table.ilse, target=8)
    pool_services.check_roll_pool(
        check=check,
        by=player,
        attribute=pool_table.strength,
        skill=pool_table.jump,
        rng=ScriptedRng(6, 3, 2, 1, 10, 4, 5),
    )
    (row,) = csv_rows(as_user(player), pool_table)
    assert (row["about"], row["dice"]) == ("Strength 3 + Jump 2", "3d6 + 2d10")
    assert (row["faces"], row["result"], row["success"]) == ("6+3 2 1 10+4 5", "highest 14", "True")


def test_text_a_spreadsheet_would_run_is_quoted(mana_table, as_user, player):
    check = ask(mana_table, mana_table.mira, target=1)
    roll_mana(check, player, mana_table.gather, (8,), spend_a=0, spend_b=0, intent="=1+1")
    (row,) = csv_rows(as_user(player), mana_table)
    assert row["intent"] == "'=1+1"
    assert json_log(as_user(player), mana_table)["entries"][0]["intent"] == "=1+1"


@pytest.mark.parametrize("name", ["log_csv", "log_json"])
def test_members_only(mana_table, as_user, outsider, gm, other_player, name):
    assert get(as_user(None), mana_table, name).status_code == 302
    assert get(as_user(outsider), mana_table, name).status_code == 404
    assert get(as_user(gm), mana_table, name).status_code == 200
    assert get(as_user(other_player), mana_table, name).status_code == 200
    url = reverse(name, args=[mana_table.campaign.id])
    assert as_user(gm).post(url).status_code == 405


@pytest.mark.parametrize("name", ["log_csv", "log_json"])
def test_a_fixed_number_of_queries_from_10_to_300_entries(mana_table, as_user, player, name):
    build_known_log(mana_table)
    client = as_user(player)
    counts = []
    for more in (1, 290):
        add_rolls(mana_table, more)
        with CaptureQueriesContext(connection) as queries:
            response = get(client, mana_table, name)
            assert response.status_code == 200 and body(response)
        counts.append(len(queries))
    assert LogEntry.objects.filter(campaign=mana_table.campaign).count() == 300
    assert counts[0] == counts[1] <= 5


@pytest.mark.parametrize("name", ["log_csv", "log_json"])
def test_a_long_log_is_read_and_sent_a_batch_at_a_time(
    mana_table, as_user, player, name, monkeypatch
):
    build_known_log(mana_table)
    add_rolls(mana_table, 11)  # 20 entries
    client = as_user(player)
    whole = body(get(client, mana_table, name))
    monkeypatch.setattr(insights, "EXPORT_BATCH", 4)
    response = get(client, mana_table, name)
    with CaptureQueriesContext(connection) as queries:
        chunks = list(response.streaming_content)
    reads = [q for q in queries if '"seq" >' in q["sql"]]
    assert len(reads) == 6  # 5 batches of 4, and the empty read that ends the log
    assert b"".join(chunks) == whole
    # CSV: its header first; JSON: its head and its end.
    assert len(chunks) == 5 + (2 if name == "log_json" else 1)


def test_json_is_compact(mana_table, as_user, gm):
    build_known_log(mana_table)
    text = body(get(as_user(gm), mana_table, "log_json")).decode()
    assert text.startswith('{"campaign":"Blue Harbor","system":"mana","entries":[{"seq":1,')
    assert "\n" not in text and '", "' not in text and '": ' not in text


def test_an_empty_log_exports_its_header_and_no_entries(mana_table, as_user, gm):
    assert csv_rows(as_user(gm), mana_table) == []
    assert body(get(as_user(gm), mana_table, "log_csv")).decode().startswith("seq,time,")
    assert json_log(as_user(gm), mana_table)["entries"] == []
    assert json_log(as_user(gm), mana_table)["fingerprint"] is None


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("name", ["log_csv", "log_json"])
async def test_under_asgi_the_export_streams_from_the_requests_thread(mana_table, name):
    """Through Django's ASGI handler (the async test client), as daphne serves it: the body is
    an asynchronous iterator whose every batch is read in a thread (``core.streams``), not a
    list Django would build whole before its first byte."""
    from asgiref.sync import sync_to_async
    from django.test import AsyncClient, Client

    build = sync_to_async(build_known_log)
    await build(mana_table)
    client = AsyncClient()
    await client.aforce_login(mana_table.player)
    url = reverse(name, args=[mana_table.campaign.id])
    response = await client.get(url)
    assert response.status_code == 200 and response.is_async
    streamed = b"".join([chunk async for chunk in response.streaming_content])

    def sync_body():
        sync = Client()
        sync.force_login(mana_table.player)
        return sync.get(url).getvalue()

    assert streamed == await sync_to_async(sync_body)()


@pytest.mark.parametrize("name", ["log_csv", "log_json"])
def test_a_client_that_accepts_gzip_gets_it_compressed_as_it_streams(
    mana_table, as_user, player, name
):
    """Compressed with the rows, a batch at a time (under ASGI in the request's thread, not by
    the middleware in the event loop), and the same text once inflated."""
    import gzip

    build_known_log(mana_table)
    client = as_user(player)
    plain = body(get(client, mana_table, name))
    url = reverse(name, args=[mana_table.campaign.id])
    response = client.get(url, headers={"Accept-Encoding": "gzip, deflate"})
    assert response["Content-Encoding"] == "gzip" and "Accept-Encoding" in response["Vary"]
    assert gzip.decompress(body(response)) == plain
    assert not get(client, mana_table, name).has_header("Content-Encoding")


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_under_asgi_the_export_is_compressed_before_the_middleware_sees_it(mana_table):
    import gzip

    from asgiref.sync import sync_to_async
    from django.test import AsyncClient

    await sync_to_async(build_known_log)(mana_table)
    client = AsyncClient()
    await client.aforce_login(mana_table.player)
    url = reverse("log_csv", args=[mana_table.campaign.id])
    response = await client.get(url, headers={"Accept-Encoding": "gzip"})
    assert response.is_async and response["Content-Encoding"] == "gzip"
    text = gzip.decompress(b"".join([chunk async for chunk in response.streaming_content]))
    assert text.decode().startswith("seq,time,")


@pytest.mark.parametrize("microsecond", [0, 120000, 123456, 5])
def test_a_time_is_written_as_isoformat_writes_it(mana_table, as_user, gm, microsecond):
    """The exports read a time as the database's text (SQLite's keeps every digit, PostgreSQL's
    drops the fraction's last zeros): both are written as ``datetime.isoformat`` would."""
    build_known_log(mana_table)
    moment = datetime(2026, 12, 5, 21, 11, 7, microsecond, tzinfo=UTC)
    LogEntry.objects.filter(campaign=mana_table.campaign, seq=2).update(created_at=moment)
    client = as_user(gm)
    assert csv_rows(client, mana_table)[1]["time"] == moment.isoformat()
    assert json_log(client, mana_table)["entries"][1]["time"] == moment.isoformat()
    assert moment.isoformat().endswith(("07+00:00", ".120000+00:00", ".123456+00:00", "05+00:00"))


def test_the_chance_is_exact_and_beside_it_a_number_a_spreadsheet_reads(
    pool_table, as_user, player
):
    """A spreadsheet reads ``36437687/46656000`` as text: the decimal column beside it is the
    same chance as a number, for a fraction too long to write too (issue #43)."""
    pool_services.rating_set(rating=pool_table.jump, value=60)
    for target in (8, 1000):  # 3d6 + 60d10: exact at TN 8, about 6e-99 at TN 1000
        check = ask(pool_table, pool_table.ilse, target=target)
        faces = (1,) * 63  # every die a 1: no explosion
        pool_services.check_roll_pool(
            check=check,
            by=player,
            attribute=pool_table.strength,
            skill=pool_table.jump,
            rng=ScriptedRng(*faces),
        )
    response = get(as_user(player), pool_table, "log_csv")
    assert "chance,chance_decimal,intent" in body(response).decode().splitlines()[0]
    exact, approximate = csv_rows(as_user(player), pool_table)
    chance = pool.success_probability(3, 60, 8)
    assert (exact["chance"], float(exact["chance_decimal"])) == (str(chance), float(chance))
    assert (approximate["chance"], approximate["chance_decimal"]) == ("~6e-99", "6e-99")
    rows = json_log(as_user(player), pool_table)["entries"]
    assert [(row["chance"], row["chance_decimal"]) for row in rows] == [
        (str(chance), float(chance)),
        ("~6e-99", 6e-99),
    ]


def every_kind_of_entry(table):
    """A log with an entry of every kind, and every visibility: Mana rolls public, private and
    GM-secret (``build_known_log``), free rolls (one the GM's secret, revealed), table talk (a
    whisper each way, text a JSON writer escapes), the dice seed revealed early, a scene shown,
    initiative, HP, and a roll whose data holds floats, nulls, nesting and non-ASCII text."""
    from django.db import transaction

    from rolls import services
    from rules.notation import parse

    t = table
    build_known_log(t)
    services.free_roll_make(campaign=t.campaign, by=t.player, notation=parse("2d6+1 vs 8"))
    secret = services.free_roll_make(
        campaign=t.campaign, by=t.gm, notation=parse("1d20"), visibility=SECRET
    )
    services.roll_reveal(campaign=t.campaign, seq=secret.seq, by=t.gm)
    services.free_roll_make(campaign=t.campaign, by=t.gm, notation=parse("1d8"), visibility=SECRET)
    services.message_send(campaign=t.campaign, by=t.player, text='Café "déjà" \\ \t ✓ 🎲 \u2028')
    services.message_send(
        campaign=t.campaign, by=t.player, text="psst </script>", to=t.other_player
    )
    services.message_send(campaign=t.campaign, by=t.other_player, text="ünïcode", to=t.player)
    services.dice_seed_reveal(campaign=t.campaign, by=t.gm)
    odd = {
        "system": "mana",
        "asked": "Ασκ «quoted»",
        "skill": "Gather Information",
        "dice": 2,
        "faces": [10, 1],
        "successes": 1,
        "target": 1,
        "success": True,
        "chance": "19/100",
        "intent": "a\nb\u0001c\u001f",
        "note": None,
        "floats": [0.1, 1e-07, 2.5e-300, -2.5, 3.0, 123456789.125],
        "nested": {"b": [{"z": None, "a": False}], "a": {}},
        "big": 9007199254740993,
    }
    with transaction.atomic():
        for kind, data, visibility, character in (
            (LogEntry.SCENE, {"name": "The docks ☂", "scene": 3}, PUBLIC, None),
            (
                LogEntry.TURNS,
                {"action": "start", "round": 1, "names": ["Mira", "Bo"]},
                PUBLIC,
                None,
            ),
            (LogEntry.TURNS, {"action": "turn", "round": 1, "name": "Bo"}, PUBLIC, None),
            (LogEntry.TURNS, {"action": "end", "round": 2, "names": []}, PUBLIC, None),
            (LogEntry.HP, {"name": "Mira", "before": 10, "after": 7}, PUBLIC, t.mira),
            (LogEntry.HP, {"name": "Warden", "before": 5, "after": 0}, SECRET, t.npc),
            (LogEntry.ROLL, odd, PUBLIC, t.mira),
            (LogEntry.ROLL, odd, PRIVATE, t.bo),
        ):
            actor = character.owner if character else t.gm
            services.log_append(
                campaign=t.campaign,
                kind=kind,
                actor=actor,
                data=data,
                visibility=visibility,
                character=character,
            )
    services.session_end(campaign=t.campaign, by=t.gm)


def json_export_as_before(campaign, viewer_id):
    """The JSON export as it was written before issue #48 (part 6): every row of the log made,
    then one ``orjson.dumps`` of them all."""
    import orjson

    batches = insights.export_batches(campaign, viewer_id, data=True)
    rows = [insights.json_row(*entry) for entries in batches for entry in entries]
    fingerprint = insights.fingerprint_of(rows[-1]) if rows else None
    head = {"campaign": campaign.name, "system": campaign.system}
    return orjson.dumps({**head, "entries": rows, "fingerprint": fingerprint})


@pytest.mark.parametrize("batch", [3, 2000])
@pytest.mark.parametrize("viewer", ["gm", "player", "other_player"])
def test_json_bytes_are_those_written_before(mana_table, as_user, viewer, batch, monkeypatch):
    """Batch after batch, the same bytes as the whole log written at once the way it was, on a
    log of every kind of entry; and each entry's data as the database keeps it."""
    every_kind_of_entry(mana_table)
    user = getattr(mana_table, viewer)
    monkeypatch.setattr(insights, "EXPORT_BATCH", batch)
    text = body(get(as_user(user), mana_table, "log_json"))
    assert text == json_export_as_before(mana_table.campaign, user.pk)
    rows = json.loads(text)["entries"]
    kinds = {row["kind"] for row in rows}
    assert kinds == {kind for kind, _ in LogEntry.KINDS}
    stored = dict(
        LogEntry.objects.filter(campaign=mana_table.campaign, sub=0).values_list("seq", "data")
    )
    shown = [row for row in rows if row["data"] is not None and row["kind"] != LogEntry.REVEAL]
    assert shown and all(row["data"] == stored[row["seq"]] for row in shown if row["to"] == "")
    hidden = [row for row in rows if row["hidden"]]
    assert bool(hidden) == (viewer != "gm")
