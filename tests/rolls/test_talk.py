"""The room's one box, read (rolls.talk): commands, whispers, mentions and refusals."""

import pytest

from rolls import talk
from rolls.models import PRIVATE, PUBLIC, SECRET, WHISPER


@pytest.mark.parametrize(
    ("box", "said"),
    [
        ("Hello table", talk.Said("message", "Hello table")),
        ("  spaced  ", talk.Said("message", "spaced")),
        ("/r 2d6+3", talk.Said("roll", "2d6+3", PUBLIC)),
        ("/roll 4d6kh3 vs 12", talk.Said("roll", "4d6kh3 vs 12", PUBLIC)),
        ("/R d20", talk.Said("roll", "d20", PUBLIC)),
        ("/gr 1d20+5", talk.Said("roll", "1d20+5", PRIVATE)),
        ("/gmroll 2d6", talk.Said("roll", "2d6", PRIVATE)),
        (
            "/w gm I pick the lock quietly",
            talk.Said("message", "I pick the lock quietly", WHISPER, "gm"),
        ),
        ("/whisper @ben meet me later", talk.Said("message", "meet me later", WHISPER, "ben")),
        ("a/r b", talk.Said("message", "a/r b")),
    ],
)
def test_what_the_box_says(box, said):
    assert talk.read(box) == said


def test_the_gm_rolls_in_secret_and_a_player_cannot():
    assert talk.read("/sr 1d100", is_gm=True) == talk.Said("roll", "1d100", SECRET)
    assert talk.read("/secretroll d6", is_gm=True).visibility == SECRET
    with pytest.raises(talk.TalkError, match="Only the GM"):
        talk.read("/sr 1d100")


@pytest.mark.parametrize(
    ("box", "word"),
    [
        ("", "Type a message"),
        ("   ", "Type a message"),
        ("x" * (talk.MESSAGE_MAX + 1), "At most 500"),
        ("/r", "Say which dice"),
        ("/w gm", "Whisper as"),
        ("/w", "Whisper as"),
        ("/dance", "There is no /dance"),
        ("/help", "rolls for everyone"),
    ],
)
def test_refused_with_a_sentence(box, word):
    with pytest.raises(talk.TalkError, match=word):
        talk.read(box)


def test_mentions_are_names_after_an_at_sign_once_each():
    assert talk.mentioned("@Ben, look! @gm and @ben again; mail a@b.c") == ["ben", "gm"]
    assert talk.mentioned("nobody here") == []
    assert talk.mentioned("end with @ana.") == ["ana"]
