"""Table talk heard through real sockets (config.asgi, the channel layer of the run): a message
reaches everyone; a whisper reaches its sender and its recipient and no other socket at all,
not even as a stub, live or replayed; the frames after it name the entry before them that every
page has (``data-prev``), so that no page sees a gap where a whisper was."""

import re
from contextlib import AsyncExitStack

import pytest

from tests.rolls.sockets import before_mark, enter, post, receive, with_clients

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.asyncio,
    pytest.mark.usefixtures("empty_channel_layer"),
]

PREV = re.compile(r'data-prev="(\d+)"')
SEQ = re.compile(r'data-seq="(\d+)"')


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
        shared = int(SEQ.search(before).group(1))

        await post(table, "ana", "talk_say", {"text": "/w ben WHISPER-WORDS"})
        to_gm, [to_ana], [to_ben] = await before_mark(gm, ana, ben, presence=False)
        assert to_gm == []
        for frame in (to_ana, to_ben):
            assert "WHISPER-WORDS" in frame and "whispers to ben" in frame
            assert int(PREV.search(frame).group(1)) == shared

        await post(table, "gm", "talk_say", {"text": "after"})
        [[after_gm], [after_ana], [after_ben]] = await before_mark(gm, ana, ben, presence=False)
        for frame in (after_gm, after_ana, after_ben):
            assert "after" in frame
            # Before it, for every page: the last entry all of them have (not the whisper).
            assert int(PREV.search(frame).group(1)) == shared
            assert int(SEQ.search(frame).group(1)) == shared + 2


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
        assert int(PREV.search(gm_frames[1]).group(1)) == int(SEQ.search(gm_frames[0]).group(1))
        assert "WHISPER-WORDS" in ben_frames[1]
        heard = await before_mark(gm, ben)
        assert all("WHISPER-WORDS" not in frame for frame in heard[0])


async def test_a_gap_replayed_after_anothers_whisper_follows_what_the_page_has(table):
    """A socket passes a whisper it never hears of; when it later repairs a gap from the log,
    the first frame names the last entry the page has (not the whisper) as the one before it,
    so that the page sees no gap and does not reconnect for nothing."""
    from channels.db import database_sync_to_async

    from rolls import push, services

    async with AsyncExitStack() as stack:
        gm, ana, ben = await sockets(stack, table)
        await post(table, "ana", "talk_say", {"text": "one"})
        await post(table, "ana", "talk_say", {"text": "/w gm WHISPER-WORDS"})
        [_, _, [one]] = await before_mark(gm, ana, ben, presence=False)
        shown = int(SEQ.search(one).group(1))

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
        assert int(PREV.search(three).group(1)) == shown
        assert int(PREV.search(again).group(1)) == int(SEQ.search(three).group(1))
        assert "WHISPER-WORDS" not in three + again
