"""The base of every rule system (rolls/systems/base.py): its optional members have explicit
defaults that the code reading them honours (no ``hasattr``), and every registered system is
one."""

import pytest

from campaigns.systems import SYSTEMS
from rolls import dice
from rolls.models import LogEntry, outcome_fields
from rolls.systems import RuleSystem, Sheet


class Bare(RuleSystem):
    """A system that gives no ``drawn``, ``replay`` nor ``rolled``: their defaults."""

    key = "bare"


@pytest.fixture
def bare():
    SYSTEMS["bare"] = Bare()
    yield SYSTEMS["bare"]
    del SYSTEMS["bare"]


@pytest.mark.parametrize("key", list(SYSTEMS))
def test_every_registered_system_is_a_rule_system(key):
    assert isinstance(SYSTEMS[key], RuleSystem)


def test_the_optional_members_say_none_explicitly():
    assert RuleSystem.drawn is None and RuleSystem.replay is None and RuleSystem.rolled is None
    assert RuleSystem.sheet is Sheet
    assert RuleSystem().rolled_groups(None) == {} and RuleSystem().suggestions() == ()


def test_a_system_without_draws_to_check_has_its_seeds_draws_alone_checked(bare):
    data = {"system": "bare", "faces": [1, 0]}
    assert dice.drawn(LogEntry.ROLL, data) is None
    assert dice._replayed(LogEntry.ROLL, data, rng=None) is None


def test_a_system_that_keeps_nothing_of_its_dice_keeps_no_pool(bare):
    fields = outcome_fields(LogEntry.ROLL, {"system": "bare", "success": True})
    assert fields["pool"] == "" and fields["shown"] is None


def test_a_required_member_left_out_says_so():
    with pytest.raises(NotImplementedError, match="Bare gives no roll"):
        Bare().roll(None, by=None, data={})


def test_a_system_s_templates_are_named_in_its_folder():
    assert Bare().template("_entry.html") == "rolls/systems/bare/_entry.html"
    fixed = Bare().fixed_templates()
    assert fixed == [f"rolls/systems/bare/{name}" for name in RuleSystem.FIXED_TEMPLATES]


def test_a_system_with_shifts_has_its_shift_card_among_its_fixed_templates():
    class Shifting(Bare):
        answer_shift = staticmethod(lambda **kwargs: None)

    assert Shifting().fixed_templates()[-1] == "rolls/systems/bare/_shift.html"
