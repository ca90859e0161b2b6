"""The live table's writes (rolls.services): checks, exact rolls with a scripted rng, the log."""

import pytest

from rolls import services
from rolls.dice import seed_open
from rolls.models import PRIVATE, SECRET, Check, LogEntry
from rolls.systems.mana import services as mana_services
from rolls.systems.mana.models import ManaSkill
from rolls.systems.mana.services import traits_set
from rolls.systems.pool import models as pool_models
from rolls.systems.pool import services as pool_services
from rolls.systems.pool.models import Rating, rating_of
from sheets.services import character_create
from tests.conftest import make_campaign
from tests.helpers import raises_refused
from tests.rolls.room_setup import fill, rate, roll_mana
from tests.rules.scripted_rng import ScriptedRng


def pools(character):
    return dict(character.mana.values_list("color", "current"))


@pytest.fixture
def gather(mana_campaign):
    return ManaSkill.objects.create(
        campaign=mana_campaign, name="Gather Information", color_a="blue", color_b="white"
    )


@pytest.fixture
def jump(mana_campaign):
    return ManaSkill.objects.create(
        campaign=mana_campaign, name="Jump", color_a="red", color_b="green", trait="Athletic"
    )


@pytest.fixture
def mira(mana_campaign, player):
    character = character_create(campaign=mana_campaign, owner=player, name="Mira")
    fill(character, blue=5, white=5, red=3, green=3, colorless=4)
    return character


@pytest.fixture
def ilse(pool_campaign, player):
    character = character_create(campaign=pool_campaign, owner=player, name="Ilse")
    rate(character, "Strength", value=2)
    rate(character, "Strength", "Jump", value=1)
    return character


@pytest.fixture
def strength(ilse):
    return rating_of(ilse, "Strength")


@pytest.fixture
def jump_rating(ilse):
    return rating_of(ilse, "Strength", "Jump")


def mana_check(campaign, character, gm, target=3, **kwargs):
    return services.check_ask(
        campaign=campaign, character=character, by=gm, target=target, **kwargs
    )


# Mana ------------------------------------------------------------------------------------------


def test_mana_worked_example_end_to_end(mana_campaign, gm, player, mira, gather):
    check = mana_check(mana_campaign, mira, gm, mana_skill=gather)

    first = roll_mana(check, player, gather, (7, 10, 4, 2), intent="Ask around the docks")

    first.refresh_from_db()
    assert first.data["parts"] == [["free", 1], ["mana", 2], ["synergy", 1]]
    assert (first.data["dice"], first.data["units"]) == (4, 2)
    assert first.data["faces"] == [7, 10, 4, 2]
    assert (first.data["successes"], first.data["success"]) == (2, False)
    assert first.data["spent"] == {"blue": 1, "white": 1}
    assert (first.data["attempt"], first.data["target"]) == (1, 3)
    assert first.data["intent"] == "Ask around the docks"
    assert (first.kind, first.actor, first.character) == (LogEntry.ROLL, player, mira)
    check.refresh_from_db()
    assert check.status == Check.FAILED
    assert (pools(mira)["blue"], pools(mira)["white"]) == (4, 4)  # spent although it failed

    services.check_allow_reattempt(check=check)
    check.refresh_from_db()
    assert check.status == Check.OPEN

    second = roll_mana(check, player, gather, (1, 10, 9, 8, 6))

    second.refresh_from_db()
    assert second.data["parts"] == [["free", 1], ["mana", 2], ["synergy", 1], ["reroll", 1]]
    assert second.data["dice"] == 5
    assert second.data["faces"] == [1, 10, 9, 8, 6]
    assert (second.data["successes"], second.data["success"]) == (4, True)
    assert second.data["attempt"] == 2
    check.refresh_from_db()
    assert check.status == Check.DONE
    assert (pools(mira)["blue"], pools(mira)["white"]) == (3, 3)
    assert list(check.rolls.order_by("seq").values_list("seq", flat=True)) == [1, 2]


def test_mana_trait_and_colorless_dice(mana_campaign, gm, player, mira, jump):
    traits_set(character=mira, traits=["athletic"])  # the trait matches in any case
    check = mana_check(mana_campaign, mira, gm, target=1)
    entry = roll_mana(check, player, jump, (1, 2, 3, 4, 5, 6, 7), colorless=2)
    # 1 free + 3 units (red, green, a colorless pair) + 1 synergy + 2 trait (3 units / 2, up)
    assert entry.data["dice"] == 7
    assert entry.data["spent"] == {"red": 1, "green": 1, "colorless": 2}
    assert (entry.data["successes"], entry.data["success"]) == (0, False)
    assert (pools(mira)["red"], pools(mira)["green"], pools(mira)["colorless"]) == (2, 2, 2)


def test_reattempt_needs_the_gm(mana_campaign, gm, player, mira, gather):
    check = mana_check(mana_campaign, mira, gm)
    roll_mana(check, player, gather, (1, 1, 1, 1))
    with raises_refused(match="cannot be rolled now"):
        roll_mana(check, player, gather, (), spend_b=0)
    assert LogEntry.objects.count() == 1


def test_reattempt_without_new_mana_is_refused(mana_campaign, gm, player, mira, gather):
    check = mana_check(mana_campaign, mira, gm)
    roll_mana(check, player, gather, (1, 1, 1, 1))
    services.check_allow_reattempt(check=check)
    before = pools(mira)
    with raises_refused(match="at least one new mana unit"):
        roll_mana(check, player, gather, (), spend_a=0, spend_b=0)
    check.refresh_from_db()
    assert check.status == Check.OPEN
    assert pools(mira) == before
    assert LogEntry.objects.count() == 1


def test_reattempt_after_a_free_die_attempt_still_needs_new_mana(
    mana_campaign, gm, player, mira, gather
):
    """A first attempt may roll the free die alone; its re-attempt must still spend mana."""
    check = mana_check(mana_campaign, mira, gm)
    roll_mana(check, player, gather, (5,), spend_a=0, spend_b=0)
    services.check_allow_reattempt(check=check)
    with raises_refused(match="at least one new mana unit"):
        roll_mana(check, player, gather, (), spend_a=0, spend_b=0)
    assert LogEntry.objects.count() == 1


def test_reattempt_keeps_the_skill(mana_campaign, gm, player, mira, gather, jump):
    check = mana_check(mana_campaign, mira, gm)
    roll_mana(check, player, gather, (1, 1), spend_b=0)
    services.check_allow_reattempt(check=check)
    with raises_refused(match="same skill"):
        roll_mana(check, player, jump, (), spend_b=0)


@pytest.mark.parametrize(
    ("spend", "message"),
    [
        ({"spend_a": 6, "spend_b": 0, "colorless": 0}, "Not enough blue mana"),
        ({"spend_a": 1, "spend_b": 1, "colorless": 6}, "Not enough colorless mana"),
        ({"spend_a": 0, "spend_b": 0, "colorless": 1}, "pairs"),
        ({"spend_a": -1, "spend_b": 0, "colorless": 0}, "whole number"),
        ({"spend_a": "1", "spend_b": 0, "colorless": 0}, "whole number"),
        ({"spend_a": 10**9, "spend_b": 0, "colorless": 0}, "whole number"),
    ],
)
def test_bad_spend_is_refused_and_changes_nothing(
    mana_campaign, gm, player, mira, gather, spend, message
):
    check = mana_check(mana_campaign, mira, gm)
    before = pools(mira)
    with raises_refused(match=message):
        mana_services.check_roll_mana(
            check=check, by=player, skill=gather, rng=ScriptedRng(), **spend
        )
    assert pools(mira) == before
    assert not LogEntry.objects.exists()
    check.refresh_from_db()
    assert check.status == Check.OPEN


def test_only_the_owner_rolls_and_only_the_campaigns_skills(
    mana_campaign, gm, player, other_player, mira, gather
):
    check = mana_check(mana_campaign, mira, gm)
    with raises_refused(match="character's player"):
        mana_services.check_roll_mana(
            check=check, by=other_player, skill=gather, spend_a=1, spend_b=0, colorless=0
        )
    elsewhere = make_campaign(gm, system="mana", name="Elsewhere")
    foreign = ManaSkill.objects.create(
        campaign=elsewhere, name="Gather Information", color_a="blue", color_b="white"
    )
    with raises_refused(match="this campaign's skills"):
        mana_services.check_roll_mana(
            check=check, by=player, skill=foreign, spend_a=1, spend_b=0, colorless=0
        )
    assert not LogEntry.objects.exists()


# Checks ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("target", [0, -1, 1001, "3", 2.5, True, None])
def test_check_target_must_be_a_whole_number(mana_campaign, gm, mira, target):
    with raises_refused(match="whole number"):
        mana_check(mana_campaign, mira, gm, target=target)
    assert not Check.objects.exists()


def test_request_then_target(mana_campaign, gm, player, other_player, mira):
    with raises_refused(match="your own characters"):
        services.check_request(campaign=mana_campaign, character=mira, by=other_player)
    check = services.check_request(
        campaign=mana_campaign, character=mira, by=player, suggestion="Climb the mast"
    )
    assert (check.status, check.target) == (Check.REQUESTED, None)
    check = services.check_set_target(check=check, target=2)
    assert (check.status, check.target) == (Check.OPEN, 2)
    with raises_refused(match="already has its number"):
        services.check_set_target(check=check, target=3)


def test_secret_checks_are_for_the_gms_own_characters(mana_campaign, gm, mira):
    with raises_refused(match="GM's own characters"):
        mana_check(mana_campaign, mira, gm, visibility=SECRET)
    npc = character_create(campaign=mana_campaign, owner=gm, name="Harbor master")
    assert mana_check(mana_campaign, npc, gm, visibility=SECRET).visibility == SECRET
    assert mana_check(mana_campaign, mira, gm, visibility=PRIVATE).visibility == PRIVATE
    with raises_refused(match="public, private or GM secret"):
        mana_check(mana_campaign, mira, gm, visibility="everyone")


def test_cancel_closes_a_check(mana_campaign, gm, player, mira, gather):
    check = mana_check(mana_campaign, mira, gm)
    services.check_cancel(check=check)
    with raises_refused(match="already closed"):
        services.check_cancel(check=check)
    with raises_refused(match="cannot be rolled now"):
        mana_services.check_roll_mana(
            check=check, by=player, skill=gather, spend_a=1, spend_b=0, colorless=0
        )
    with raises_refused(match="Only a failed check"):
        services.check_allow_reattempt(check=check)


# Pool ------------------------------------------------------------------------------------------


def pool_check(campaign, character, gm, target=8, **kwargs):
    return services.check_ask(
        campaign=campaign, character=character, by=gm, target=target, **kwargs
    )


def test_pool_worked_example(pool_campaign, gm, player, ilse, strength, jump_rating):
    check = pool_check(pool_campaign, ilse, gm)
    entry = pool_services.check_roll_pool(
        check=check, by=player, attribute=strength, skill=jump_rating, rng=ScriptedRng(4, 6, 3, 2)
    )
    entry.refresh_from_db()
    assert entry.data["d6"] == [[4], [6, 3]]
    assert entry.data["d10"] == [[2]]
    assert (entry.data["highest"], entry.data["target"], entry.data["success"]) == (9, 8, True)
    assert (entry.data["attribute"], entry.data["attribute_value"]) == ("Strength", 2)
    assert (entry.data["skill"], entry.data["skill_value"]) == ("Jump", 1)
    assert entry.data["shift"] is None
    assert entry.data["bonus_achieved"] is False
    check.refresh_from_db()
    assert check.status == Check.DONE


def test_attribute_alone_and_a_highest_of_one_fails(pool_campaign, gm, player, ilse, strength):
    check = pool_check(pool_campaign, ilse, gm, target=1)
    entry = pool_services.check_roll_pool(
        check=check, by=player, attribute=strength, rng=ScriptedRng(1, 1)
    )
    assert (entry.data["d10"], entry.data["highest"], entry.data["success"]) == ([], 1, False)


def shift(check, player, strength, jump_rating, **kwargs):
    return pool_services.check_roll_pool(
        check=check,
        by=player,
        attribute=strength,
        skill=jump_rating,
        bonus_effect="Land without a sound",
        rng=ScriptedRng(),
        **kwargs,
    )


def test_shift_waits_for_the_gm_with_nothing_rolled(
    pool_campaign, gm, player, ilse, strength, jump_rating
):
    check = pool_check(pool_campaign, ilse, gm)
    assert shift(check, player, strength, jump_rating, shift_d6=1) is None
    check.refresh_from_db()
    assert check.status == Check.SHIFT
    own = pool_models.check_of(check)
    assert (own.shift_d6, own.shift_d10, own.bonus_effect) == (1, 0, "Land without a sound")
    assert not LogEntry.objects.exists()
    with raises_refused(match="cannot be rolled now"):
        pool_services.check_roll_pool(check=check, by=player, attribute=strength, rng=ScriptedRng())


@pytest.mark.parametrize(
    ("faces", "success"),
    [((5, 9), True), ((2, 3), False)],
)
def test_approved_shift_rolls_the_rest(
    pool_campaign, gm, player, ilse, strength, jump_rating, faces, success
):
    check = pool_check(pool_campaign, ilse, gm)
    shift(check, player, strength, jump_rating, shift_d6=1)
    entry = pool_services.check_answer_shift(check=check, approve=True, rng=ScriptedRng(*faces))
    entry.refresh_from_db()
    # Strength 2 - 1 shifted = 1d6, Jump 1 = 1d10.
    assert (entry.data["d6"], entry.data["d10"]) == ([[faces[0]]], [[faces[1]]])
    assert entry.data["shift"] == {"d6": 1, "d10": 0}
    assert entry.data["bonus_effect"] == "Land without a sound"
    assert entry.data["success"] is success
    assert entry.data["bonus_achieved"] is success
    assert entry.actor == player
    check.refresh_from_db()
    assert check.status == Check.DONE


def test_declined_shift_reopens_the_check(pool_campaign, gm, player, ilse, strength, jump_rating):
    check = pool_check(pool_campaign, ilse, gm)
    shift(check, player, strength, jump_rating, shift_d10=1)
    assert pool_services.check_answer_shift(check=check, approve=False, rng=ScriptedRng()) is None
    check.refresh_from_db()
    own = pool_models.check_of(check)
    assert (check.status, own.shift_d6, own.shift_d10, own.bonus_effect) == (
        Check.OPEN,
        0,
        0,
        "",
    )
    assert not LogEntry.objects.exists()
    with raises_refused(match="No shift awaits"):
        pool_services.check_answer_shift(check=check, approve=True)
    entry = pool_services.check_roll_pool(
        check=check, by=player, attribute=strength, skill=jump_rating, rng=ScriptedRng(1, 2, 3)
    )
    assert entry.data["shift"] is None


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"shift_d6": 2, "shift_d10": 1}, "At least one die must stay"),
        ({"shift_d6": 3}, "more dice than the pool has"),
        ({"shift_d6": 1, "bonus_effect": "  "}, "bonus effect"),
        ({"shift_d6": -1}, "whole number"),
    ],
)
def test_bad_shift_is_refused(
    pool_campaign, gm, player, ilse, strength, jump_rating, kwargs, message
):
    check = pool_check(pool_campaign, ilse, gm)
    kwargs = {"bonus_effect": "Land without a sound", **kwargs}
    with raises_refused(match=message):
        pool_services.check_roll_pool(
            check=check,
            by=player,
            attribute=strength,
            skill=jump_rating,
            rng=ScriptedRng(),
            **kwargs,
        )
    check.refresh_from_db()
    own = pool_models.check_of(check)
    assert (check.status, own.shift_d6, own.shift_d10) == (Check.OPEN, 0, 0)


def test_pool_choices_are_refused(pool_campaign, gm, player, other_player, ilse, strength):
    check = pool_check(pool_campaign, ilse, gm)
    dodge = rate(ilse, "Agility", "Dodge", value=2)
    wrestling = Rating.objects.create(
        character=ilse,
        attribute="Strength",
        skill="Wrestling",
        value=2,
        status=Rating.PENDING,
        custom=True,
    )
    bens = character_create(campaign=pool_campaign, owner=other_player, name="Corvin")
    bens_strength = rate(bens, "Strength", value=3)

    choices = [
        ({"by": player, "attribute": strength, "skill": dodge}, "skill of Agility"),
        ({"by": player, "attribute": strength, "skill": wrestling}, "not been greenlit"),
        ({"by": player, "attribute": bens_strength}, "your character's attributes"),
        ({"by": player, "attribute": dodge}, "your character's attributes"),
        ({"by": player, "attribute": rating_of(ilse, "Agility")}, "no dice"),
        ({"by": other_player, "attribute": strength}, "character's player"),
    ]
    for kwargs, message in choices:
        with raises_refused(match=message):
            pool_services.check_roll_pool(check=check, rng=ScriptedRng(), **kwargs)
    check.refresh_from_db()
    assert check.status == Check.OPEN
    assert not LogEntry.objects.exists()


# Sessions (the log itself: test_log.py) ----------------------------------------------------


def roll_free_die(campaign, character, gm, skill, face=5):
    check = services.check_ask(campaign=campaign, character=character, by=gm, target=1)
    return roll_mana(check, character.owner, skill, (face,), spend_a=0, spend_b=0)


def test_sessions(mana_campaign, gm, player, other_player, mira, gather):
    bens = character_create(campaign=mana_campaign, owner=other_player, name="Tobin")
    roll_free_die(mana_campaign, bens, gm, gather)  # before the session: not a participant
    with raises_refused(match="No session is running"):
        services.session_end(campaign=mana_campaign, by=gm)

    session, entry = services.session_start(campaign=mana_campaign, by=gm)
    assert (session.number, session.is_open) == (1, True)
    assert (entry.kind, entry.session, entry.data["number"]) == (
        LogEntry.SESSION_START,
        session,
        1,
    )
    # The session's dice seed, committed in its first entry (tests/rolls/test_dice.py).
    assert entry.data["dice"] == seed_open(mana_campaign).commitment
    with raises_refused(match="already running"):
        services.session_start(campaign=mana_campaign, by=gm)
    check = services.check_ask(campaign=mana_campaign, character=mira, by=gm, target=1)
    assert check.session == session
    roll = roll_free_die(mana_campaign, mira, gm, gather)
    assert roll.session == session
    assert list(services.session_participants(session)) == [mira]

    ended, end_entry = services.session_end(campaign=mana_campaign, by=gm)
    ended.refresh_from_db()
    assert ended.ended_at is not None
    assert (end_entry.kind, end_entry.session) == (LogEntry.SESSION_END, session)
    assert services.open_session(mana_campaign) is None
    roll_free_die(mana_campaign, bens, gm, gather)  # after the session
    assert list(services.session_participants(session)) == [mira]

    following, _ = services.session_start(campaign=mana_campaign, by=gm)
    assert following.number == 2
    assert not services.session_participants(following).exists()


def test_sessions_are_numbered_per_campaign(mana_campaign, pool_campaign, gm):
    services.session_start(campaign=mana_campaign, by=gm)
    session, _ = services.session_start(campaign=pool_campaign, by=gm)
    assert session.number == 1
