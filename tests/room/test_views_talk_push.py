"""Table talk heard through real sockets (config.asgi, the channel layer of the run): a message
reaches everyone; a whisper reaches its sender and its recipient and no other socket at all,
not even as a stub, live or replayed. A whisper takes no number of its own (#5.1 after #5), so
the numbers every page sees follow one another: nobody sees a gap where a whisper was."""

import re
from contextlib import AsyncExitStack

import pytest

from tests.rolls.sockets import before_mark, enter, post, receive, with_clients

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.asyncio,
    pytest.mark.usefixtures("empty_channel_layer"),
]

SEQ = re.compile(r'data-seq="(\d+)"')


def number(frame):
    """The number of the entry a frame carries: "5", a whisper after #5 "5+"."""
    return SEQ.search(frame).group(1) + ("+" if " data-whisper" in frame else "")


@pytest.fixture
def table(pool_table, gm, player, other_player):
    return with_clients(pool_table, gm, player, other_player)


async def sockets(stack, table):
    found = [await enter(stack, table, name) for name in ("gm", "ana", "ben")]
    await before_mark(*found, presence=False)
    return found


async def test_a_message_reaches_every_socket(table):
    async with AsyncExitStack() as stack:
        gm, ana, ben = await sockets(stack, table)
        response = await post(table, "ana", "talk_say", {"text": "Hello all"})
        assert response.status_code == 200
        heard = await before_mark(gm, ana, ben, presence=False)
        for frames in heard:
            [frame] = frames
            assert "Hello all" in frame and 'class="entry message' in frame


async def test_a_whisper_reaches_only_its_two_ends(table):
    async with AsyncExitStack() as stack:
        gm, ana, ben = await sockets(stack, table)
        await post(table, "ana", "talk_say", {"text": "before"})
        [[before], _, _] = await before_mark(gm, ana, ben, presence=False)
        shared = int(number(before))

        await post(table, "ana", "talk_say", {"text": "/w ben WHISPER-WORDS"})
        to_gm, [to_ana], [to_ben] = await before_mark(gm, ana, ben, presence=False)
        assert to_gm == []
        for frame in (to_ana, to_ben):
            assert "WHISPER-WORDS" in frame and "whispers to ben" in frame
            assert number(frame) == f"{shared}+"
            assert f'id="entry-{shared}-' in frame and "data-sub" not in frame

        await post(table, "gm", "talk_say", {"text": "after"})
        [[after_gm], [after_ana], [after_ben]] = await before_mark(gm, ana, ben, presence=False)
        for frame in (after_gm, after_ana, after_ben):
            # The next number for every page: the whisper took none.
            assert "after" in frame and number(frame) == str(shared + 1)
            assert "data-prev" not in frame


async def test_a_replay_skips_anothers_whisper(table):
    await post(table, "ana", "talk_say", {"text": "one"})
    await post(table, "ana", "talk_say", {"text": "/w ben WHISPER-WORDS"})
    await post(table, "ben", "talk_say", {"text": "three"})
    async with AsyncExitStack() as stack:
        gm = await enter(stack, table, "gm", query="?after=0")
        gm_frames = [await receive(gm) for _ in range(2)]
        ben = await enter(stack, table, "ben", query="?after=0")
        ben_frames = [await receive(ben) for _ in range(3)]
        assert "WHISPER-WORDS" not in "".join(gm_frames)
        assert ["one" in gm_frames[0], "three" in gm_frames[1]] == [True, True]
        assert [number(frame) for frame in gm_frames] == ["1", "2"]
        assert [number(frame) for frame in ben_frames] == ["1", "1+", "2"]
        assert "WHISPER-WORDS" in ben_frames[1]
        heard = await before_mark(gm, ben)
        assert all("WHISPER-WORDS" not in frame for frame in heard[0])


async def test_a_page_resumes_after_its_last_number_with_its_whispers_after_it(table):
    """A page names only numbers (``?after=1``): the whispers after #1 it is part of come again
    (the page drops those it has), then #2; another's whisper never."""
    await post(table, "ana", "talk_say", {"text": "one"})
    await post(table, "ben", "talk_say", {"text": "/w gm OTHERS-WHISPER"})
    await post(table, "ben", "talk_say", {"text": "/w ana SECOND-WHISPER"})
    await post(table, "gm", "talk_say", {"text": "two"})
    async with AsyncExitStack() as stack:
        ana = await enter(stack, table, "ana", query="?after=1")
        frames = [await receive(ana) for _ in range(2)]
        assert [number(frame) for frame in frames] == ["1+", "2"]
        assert "SECOND-WHISPER" in frames[0] and "two" in frames[1]
        heard = await before_mark(ana)
        assert all("WHISPER" not in frame for frame in heard[0])


async def test_a_replay_counts_only_what_the_viewer_may_learn_of(table, monkeypatch):
    """The replay's limit counts the viewer's entries, not others' whispers: the GM, back after
    #1, five whispers between players, #2 and #3, gets all three numbers at once, and the next
    push follows without a wait."""
    from room import consumers

    monkeypatch.setattr(consumers, "REPLAY_LIMIT", 3)
    monkeypatch.setattr(consumers, "REORDER_WAIT", 30)  # never reached here
    await post(table, "ana", "talk_say", {"text": "one"})
    for n in range(5):
        await post(table, "ana", "talk_say", {"text": f"/w ben W{n}"})
    for text in ("two", "three"):
        await post(table, "ben", "talk_say", {"text": text})
    async with AsyncExitStack() as stack:
        gm = await enter(stack, table, "gm", query="?after=0")
        frames = [await receive(gm) for _ in range(3)]
        assert [number(frame) for frame in frames] == ["1", "2", "3"]
        await post(table, "ana", "talk_say", {"text": "/w ben W5"})
        await post(table, "ana", "talk_say", {"text": "four"})
        [heard] = await before_mark(gm)
        assert [number(frame) for frame in heard if "data-seq" in frame] == ["4"]


async def test_pushes_around_a_whisper_out_of_order_are_put_back_in_order(table, monkeypatch):
    """The push of the entry after a whisper comes before the whisper's: every socket holds it
    until the whisper's push comes (for a socket not part of it, a push that sends nothing), and
    reads nothing from the log."""
    from channels.db import database_sync_to_async

    from rolls import services
    from room import consumers, push

    monkeypatch.setattr(consumers, "REORDER_WAIT", 30)  # never reached here
    async with AsyncExitStack() as stack:
        gm, ana, ben = await sockets(stack, table)

        def said_unpushed():
            campaign, gm_user = table.campaign, table.gm
            return [
                services.message_send(campaign=campaign, by=gm_user, text="one"),
                services.message_send(
                    campaign=campaign, by=gm_user, text="WHISPER", to=table.player
                ),
                services.message_send(campaign=campaign, by=gm_user, text="two"),
            ]

        one, whisper, two = await database_sync_to_async(said_unpushed)()
        reads = []
        monkeypatch.setattr(consumers.RoomConsumer, "missed", lambda *a: reads.append(a))
        for entry in (two, one):
            await database_sync_to_async(push.push_entry)(entry)
        heard = await before_mark(gm, ana, ben, presence=False)
        assert [[number(frame) for frame in frames] for frames in heard] == [["1"]] * 3
        await database_sync_to_async(push.push_entry)(whisper)
        heard = await before_mark(gm, ana, ben, presence=False)
        assert [[number(frame) for frame in frames] for frames in heard] == [
            ["1+", "2"],
            ["1+", "2"],
            ["2"],
        ]
        assert "WHISPER" not in "".join(heard[2])
    assert reads == []


async def test_a_gap_replayed_after_anothers_whisper_follows_what_the_page_has(table):
    """A socket passes a whisper it never hears of; when it later repairs a gap from the log,
    the frames it sends carry the next numbers after the page's last: the page sees no gap and
    does not reconnect for nothing."""
    from channels.db import database_sync_to_async

    from rolls import services
    from room import push

    async with AsyncExitStack() as stack:
        gm, ana, ben = await sockets(stack, table)
        await post(table, "ana", "talk_say", {"text": "one"})
        await post(table, "ana", "talk_say", {"text": "/w gm WHISPER-WORDS"})
        [_, _, [one]] = await before_mark(gm, ana, ben, presence=False)
        shown = int(number(one))

        def two_more_unpushed():
            said = [
                services.message_send(campaign=table.campaign, by=table.gm, text=text)
                for text in ("three", "four")
            ]
            return said[-1]

        four = await database_sync_to_async(two_more_unpushed)()
        # Only the last one is pushed: the sockets hold it, wait for "three", then read the
        # log for it.
        await database_sync_to_async(push.push_entry)(four)
        three, again = await receive(ben), await receive(ben)
        assert "three" in three and "four" in again
        assert [number(three), number(again)] == [str(shown + 1), str(shown + 2)]
        assert "WHISPER-WORDS" not in three + again
