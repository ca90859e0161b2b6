"""Free dice notation: what players type after ``/r``, its rolls and the exact odds of a target.

The notation as the app reads it (the /rules/ page tells the same to players):

* Text: at most :data:`MAX_TEXT` characters (checked before anything else), plain ASCII only,
  case-insensitive, spaces anywhere between numbers, words and signs (``2 d 6 + 3`` reads as
  ``2d6+3``; a space cannot split a number or a word such as ``kh``).
* A dice group is ``NdF``: ``N`` dice (1 if left out, so ``d20`` is ``1d20``) of ``F`` faces,
  ``F`` in ``1..MAX_FACES``; ``d%`` is ``d100``. Each die shows ``1..F``. A roll uses at most
  :data:`~rules.errors.MAX_DICE` dice in all groups together, counted before explosions.
* A Fate group is the letters ``dF`` after its count (``4dF``; ``dF`` alone is one die, and the
  letter F is no number of faces): Fate dice, each showing -1, 0 or +1 with the same chance,
  written in the log as ``4df``; it takes no options (keep/drop, ``!``,
  counting are refused). Rolled, each is one ``rng.randint(1, 3)`` less 2 (a fair d3's 1, 2, 3
  read as -1, 0, +1: its draw is checked as a d3's, ``rolls.dice``); its odds are those of
  ``Nd3`` less ``2N`` (the group's constant, :func:`_linear`).
* After the faces, in any order, each at most once:

  - keep or drop: ``khK`` keeps the ``K`` highest dice, ``klK`` the ``K`` lowest, ``dhK`` drops
    the ``K`` highest, ``dlK`` the ``K`` lowest. ``K`` lies in ``1..N`` when keeping and
    ``1..N-1`` when dropping (a group keeps at least one die). Among equal faces the earlier die
    is kept and the later one dropped. A bare ``k3`` is refused: Roll20 reads it as "keep the 3
    highest", Avrae as "keep the 3s".
  - ``!`` explodes: a die showing its maximum ``F`` is rolled again and the new face is another
    die of the group, added to it; this repeats while it shows ``F``. A die is rolled again at
    most :data:`MAX_EXPLOSIONS` times; the last re-roll counts as it is, even at ``F`` (so the
    odds below are exact for this capped rule). Exploding needs ``F >= 2``. Each die's whole
    chain is rolled before the next die.
  - counting: ``>=T`` makes the group's value the number of its dice (explosions included)
    showing ``T`` or more, ``<=T`` the number showing ``T`` or less; ``T`` in ``1..F``. A bare
    ``>``, ``<`` or ``=`` is refused (Roll20 reads ``>8`` as "8 or more").

  Keep/drop and exploding, or keep/drop and counting, do not combine (refused): exploding and
  counting do (``6d10!>=8``).
* Otherwise a group's value is the sum of its kept dice (every die when exploding).
* Arithmetic: whole numbers ``0..MAX_TOTAL``, ``+``, ``-``, ``*``, unary ``-`` (a unary ``+`` is
  read and dropped), and parentheses nested at most :data:`MAX_DEPTH` deep. ``*`` needs a side
  without dice (``(1d4+1)*2``; ``1d6*1d6`` is refused), so a total is always a whole-number
  linear combination of independent groups. There is no division. Both the lowest and the
  highest possible total lie within ``-MAX_TOTAL..MAX_TOTAL``.
* Advantage: the word ``adv`` (or ``advantage``) after the expression turns its one plain ``1d20``
  into ``2d20kh1``; ``dis`` (``disadvantage``) into ``2d20kl1``. Other groups may stand beside
  it (``d20+1d4+5 adv``), but there must be exactly one plain ``1d20``.
* A target: ``vs N`` after the expression (before or after ``adv``/``dis``), ``N`` in
  ``1..MAX_TARGET``. The roll succeeds when the total is ``N`` or more.
* Canonical text (what the log shows, without the target): lower case, no spaces, ``NdF`` with
  ``N`` written out, then ``!``, the keep/drop, the count; numbers without leading zeros, no
  unary ``+``; parentheses only where the expression needs them (and around a negative right
  operand: ``2*(-3)``), ``adv``/``dis`` already rewritten. With its target it reads back to the
  same :class:`Notation` (:func:`logged`), though it may be longer than a player may type
  (``d6+d6`` is written ``1d6+1d6``) or nest deeper (``2--3`` is written ``2-(-3)``).
* Rolling: every die is ``rng.randint(1, F)``, in order of appearance; nothing else draws.
* The detail line writes each group as ``notation (faces)``: dropped dice as ``~~1~~``, a die
  that exploded as ``6!``, a die that counted as ``9*``; then `` = total``, and with a target
  `` vs N: success`` or `` vs N: failure``.
* The log entry (:meth:`Outcome.as_data`) has ``target`` and ``success`` only with a target,
  and ``chance`` only with a target and when the caller passed the odds to :func:`roll` (which
  never computes them: ``roll(notation, rng, chance=chance(notation))``); a die's ``dropped``,
  ``exploded`` and ``hit`` only when true.
* Odds: :func:`chance` is the exact P(total >= target) for this procedure, a
  :class:`fractions.Fraction`. The total is ``c0 + sum(c_i * G_i)`` over independent groups;
  the groups with ``c_i > 0`` form ``P``, those with ``c_i < 0`` form ``Q`` (as ``|c_i| * G_i``),
  and success is ``P >= goal + Q`` with ``goal = target - c0``. Each side's distribution is
  built in integer weights, clamped: every value of ``P`` from ``goal + max Q`` up, and every
  value of ``Q`` from ``max P - goal + 1`` up, decides the same, so it is one bucket. Plain sums
  add a die at a time with prefix sums, exploding sums likewise (a chain is uniform on each
  block ``kF+1..kF+F-1``), keep/drop runs a count over the faces from the kept end, counting is
  binomial (or a convolution of per-die counts when exploding). The work is estimated from the
  notation first (:func:`chance_cost`); :func:`parse` refuses a target whose estimate exceeds
  :data:`MAX_CHANCE_COST`, so a targeted notation always has its exact odds, quickly. The odds
  shown before a roll is sent are worked out only up to :data:`MAX_PREVIEW_COST`.

Why a parser of our own and not ``d20.parse``: d20 reads ``6d10>=8`` as a comparison of the
group's total with 8, not a count of dice; it has no ``!``, ``dl``/``dh``, ``adv`` or ``vs``; its
errors are parser messages, not sentences for players; and it accepts much we would have to walk
and refuse (re-rolls, sets, annotations, division, comments). The scanner and recursive descent
below are linear in the (at most 100) characters and never let anything else roll.

Why odds of our own and not icepool's: icepool builds a whole distribution, every value of it,
in exact fractions; measured here, ``100d100`` took 27 s, ``20d1000`` 81 s and 100 exploding d6
12 s, where a target only needs the values below it (everything from the target up is one
bucket, above) and a request must answer in well under a second. icepool stays the tests'
independent check of these odds (tests/rules/test_notation.py).
"""

from __future__ import annotations

from bisect import bisect_left
from collections import defaultdict
from dataclasses import dataclass
from fractions import Fraction
from itertools import accumulate, repeat
from math import comb
from operator import add, mul, sub

from . import odds
from .errors import MAX_DICE, MAX_TARGET, Rng, RulesError

__all__ = [
    "MAX_CHANCE_COST",
    "MAX_DEPTH",
    "MAX_DICE",
    "MAX_EXPLOSIONS",
    "MAX_FACES",
    "MAX_LOGGED_DEPTH",
    "MAX_LOGGED_TEXT",
    "MAX_PREVIEW_COST",
    "MAX_TARGET",
    "MAX_TEXT",
    "MAX_TOTAL",
    "Dice",
    "Negative",
    "Notation",
    "Number",
    "Operation",
    "Outcome",
    "RolledDie",
    "RolledGroup",
    "chance",
    "chance_cost",
    "logged",
    "parse",
    "roll",
]

#: Most characters of an expression (checked first).
MAX_TEXT = 100

#: Most faces of a die (and dice have at least 1; exploding ones at least 2).
MAX_FACES = 1000

#: Deepest nesting of parentheses.
MAX_DEPTH = 4

#: Most characters and deepest nesting of a logged expression (:func:`logged`): the canonical
#: text of an accepted notation. Each typed character becomes at most three (``d6`` is written
#: ``1d6``, ``d%`` ``1d100``, a unary minus on the right ``(-3)``), and each pair of parentheses
#: in it was typed (two characters) or wraps a typed unary minus (one, and an operand).
MAX_LOGGED_TEXT = 3 * MAX_TEXT
MAX_LOGGED_DEPTH = MAX_TEXT // 2

#: Most re-rolls of one exploding die; the last re-roll's face counts as it is.
MAX_EXPLOSIONS = 20

#: Largest number written, and the bound on the lowest and highest possible total.
MAX_TOTAL = 10_000_000

#: Most work (in estimated steps, :func:`chance_cost`) the exact odds of a target may take: a
#: roll's request waits for them, so even the worst target accepted (found by a random search:
#: exploding counts like ``70d3!>=2 vs 167``) must be answered well within a second on a slow
#: server; a target that would take more is refused (:func:`parse`), and the player rolls
#: without it or with fewer dice.
MAX_CHANCE_COST = 300_000

#: Most work (as :data:`MAX_CHANCE_COST`) the odds shown while a roll is typed may take, before
#: it is sent: a player asks for one a keystroke, where a roll is asked for once. Above it the
#: preview says so and the roll itself still gives its exact odds. Below it, even the worst
#: found (``26d6!>=2 vs 50``) is answered before the player types the next key.
MAX_PREVIEW_COST = 30_000

EXAMPLES = "write dice like 2d6+3, 4d6kh3, 3d6!, 6d10>=8, 4dF or d20+5 adv vs 15"
COMPARE_HINT = "Write >=8 (8 or more) or <=3 (3 or less)"
KEEPS = ("kh", "kl", "dh", "dl")
#: The words that start a dice group: ``d`` (then its faces) and ``df`` (Fate dice).
DICE_WORDS = ("d", "df")
ADVANTAGE = {"adv": "kh", "advantage": "kh", "dis": "kl", "disadvantage": "kl"}
OTHER_OPTIONS = {
    "k": "Write kh3 (keep the 3 highest) or kl3 (keep the 3 lowest).",
    "d": "Write dl1 (drop the lowest) or dh1 (drop the highest); a group cannot roll dice again.",
    "p": "Write dl1 (drop the lowest) or dh1 (drop the highest).",
    "e": "Write ! to explode on the highest face, e.g. 3d6!.",
    "x": "Write * to multiply.",
}


# --- the notation's tree --------------------------------------------------------------------------


@dataclass(frozen=True)
class Number:
    """A whole number written in the expression."""

    value: int


@dataclass(frozen=True)
class Dice:
    """A dice group: ``count`` dice of ``faces`` faces and its options (see the module rules)."""

    count: int
    faces: int
    explode: bool = False
    keep: str | None = None  # "kh", "kl", "dh" or "dl"
    keep_count: int = 0
    compare: str | None = None  # ">=" or "<="
    threshold: int = 0
    #: Fate dice (``NdF``): ``faces`` is 3, each die's face less 2 (see the module rules).
    fate: bool = False

    @property
    def text(self) -> str:
        """The group's canonical text, e.g. ``4d6kh3``, ``6d10!>=8`` or ``4df``."""
        if self.fate:
            return f"{self.count}df"
        text = f"{self.count}d{self.faces}"
        if self.explode:
            text += "!"
        if self.keep:
            text += f"{self.keep}{self.keep_count}"
        if self.compare:
            text += f"{self.compare}{self.threshold}"
        return text

    @property
    def kept(self) -> int:
        """How many dice count towards the sum (before explosions)."""
        if self.keep in ("kh", "kl"):
            return self.keep_count
        if self.keep in ("dh", "dl"):
            return self.count - self.keep_count
        return self.count

    def hits(self, face: int) -> bool:
        """Whether ``face`` counts, for a counting group."""
        return face >= self.threshold if self.compare == ">=" else face <= self.threshold


@dataclass(frozen=True)
class Negative:
    """Unary minus."""

    operand: Node


@dataclass(frozen=True)
class Operation:
    """``left op right`` with ``op`` one of ``+``, ``-``, ``*``."""

    op: str
    left: Node
    right: Node


Node = Number | Dice | Negative | Operation


@dataclass(frozen=True)
class Notation:
    """A parsed expression: its canonical ``text``, the stated ``target`` (or None) and ``tree``."""

    text: str
    target: int | None
    tree: Node

    @property
    def groups(self) -> tuple[Dice, ...]:
        """The dice groups in order of appearance."""
        return tuple(_groups(self.tree))


def _groups(node: Node):
    if isinstance(node, Dice):
        yield node
    elif isinstance(node, Negative):
        yield from _groups(node.operand)
    elif isinstance(node, Operation):
        yield from _groups(node.left)
        yield from _groups(node.right)


# --- reading the text -----------------------------------------------------------------------------

Token = tuple[str, object, int]  # (kind, value, position): "num", "word" or "op"


def _unreadable(text: str, position: int, why: str | None = None) -> RulesError:
    rest = text[position : position + 12] if position < len(text) else "the end"
    what = f"Cannot read {rest!r}" if position < len(text) else "The expression stops too soon"
    return RulesError(f"{what}: {why or EXAMPLES}.")


def _tokens(text: str) -> list[Token]:
    """Split lower-cased ASCII ``text`` into numbers, letter words and operators (one pass)."""
    tokens: list[Token] = []
    i, end = 0, len(text)
    while i < end:
        ch = text[i]
        if ch in " \t\r\n\f\v":
            i += 1
        elif "0" <= ch <= "9":
            j = i
            while j < end and "0" <= text[j] <= "9":
                j += 1
            if j - i > len(str(MAX_TOTAL)) or int(text[i:j]) > MAX_TOTAL:
                raise RulesError(f"Numbers can be at most {MAX_TOTAL} (got {text[i : i + 12]}).")
            tokens.append(("num", int(text[i:j]), i))
            i = j
        elif "a" <= ch <= "z":
            j = i
            while j < end and "a" <= text[j] <= "z":
                j += 1
            tokens.append(("word", text[i:j], i))
            i = j
        elif ch in "<>=":
            pair = text[i : i + 2]
            if pair not in (">=", "<="):
                raise RulesError(f"{COMPARE_HINT} to count dice, not {pair.strip()!r}.")
            tokens.append(("op", pair, i))
            i += 2
        elif ch in "+-*()!%":
            tokens.append(("op", ch, i))
            i += 1
        else:
            raise _unreadable(text, i, f"{ch!r} is not part of dice notation; {EXAMPLES}")
    return tokens


class _Parser:
    """Recursive descent: sum := product (('+'|'-') product)*; product := unary ('*' unary)*;
    unary := ('-'|'+')* atom; atom := number | [number] 'd' faces options | '(' sum ')'."""

    def __init__(self, text: str, max_depth: int = MAX_DEPTH):
        self.text = text
        self.tokens = _tokens(text)
        self.i = 0
        self.dice = 0
        self.max_depth = max_depth

    def peek(self) -> Token | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def at(self, kind: str, *values: object) -> bool:
        token = self.peek()
        return token is not None and token[0] == kind and (not values or token[1] in values)

    def position(self) -> int:
        token = self.peek()
        return token[2] if token else len(self.text)

    def fail(self, why: str | None = None) -> RulesError:
        return _unreadable(self.text, self.position(), why)

    def take(self) -> Token:
        token = self.tokens[self.i]
        self.i += 1
        return token

    def number(self, why: str) -> int:
        if not self.at("num"):
            raise self.fail(why)
        return self.take()[1]  # type: ignore[return-value]

    def sum(self, depth: int) -> Node:
        node = self.product(depth)
        while self.at("op", "+", "-"):
            op = self.take()[1]
            node = Operation(op, node, self.product(depth))  # type: ignore[arg-type]
        return node

    def product(self, depth: int) -> Node:
        node = self.unary(depth)
        while self.at("op", "*"):
            self.take()
            right = self.unary(depth)
            if _has_dice(node) and _has_dice(right):
                raise RulesError("Multiply dice only by a whole number, e.g. (1d4+1)*2.")
            node = Operation("*", node, right)
        return node

    def unary(self, depth: int) -> Node:
        signs = []
        while self.at("op", "-", "+"):
            signs.append(self.take()[1])
        node = self.atom(depth)
        for sign in reversed(signs):
            if sign == "-":
                node = Negative(node)
        return node

    def atom(self, depth: int) -> Node:
        if self.at("op", "("):
            if depth >= self.max_depth:
                raise RulesError(f"Parentheses can be nested at most {self.max_depth} deep.")
            self.take()
            node = self.sum(depth + 1)
            if not self.at("op", ")"):
                raise self.fail("a parenthesis is not closed")
            self.take()
            return node
        if self.at("num"):
            value = self.take()[1]
            if self.at("word", *DICE_WORDS):
                return self.group(value)  # type: ignore[arg-type]
            return Number(value)  # type: ignore[arg-type]
        if self.at("word", *DICE_WORDS):
            return self.group(1)
        if self.at("op", ")"):
            raise self.fail("a parenthesis closes that was never opened, or holds nothing")
        raise self.fail()

    def group(self, count: int) -> Dice:
        fate = self.take()[1] == "df"  # the "d", or "df" (the letters are one word)
        if count < 1:
            raise RulesError("A dice group needs at least 1 die, e.g. 1d6.")
        self.dice += count
        if self.dice > MAX_DICE:
            raise RulesError(f"A roll can use at most {MAX_DICE} dice (got {self.dice} or more).")
        if fate:
            if self.at("op", "!", "%", ">=", "<=") or self.at("word", *KEEPS, *OTHER_OPTIONS):
                raise self.fail("Fate dice take no options: write 4dF, or 4dF+1")
            return Dice(count, 3, fate=True)
        if self.at("op", "%"):
            self.take()
            faces = 100
        else:
            faces = self.number("write the faces after the d, e.g. d6, d20 or d%")
        if not 1 <= faces <= MAX_FACES:
            raise RulesError(f"A die has 1 to {MAX_FACES} faces (got d{faces}).")
        options: dict[str, object] = {}
        while True:
            if self.at("op", "!"):
                self.once(options, "explode", "Explode a group once: 3d6!")
                self.take()
                options["explode"] = True
            elif self.at("word", *KEEPS):
                self.once(options, "keep", "Keep or drop once per group, e.g. 4d6kh3.")
                keep = self.take()[1]
                options["keep"] = keep
                options["keep_count"] = self.number(
                    f"write how many dice to {'keep' if keep[0] == 'k' else 'drop'}, "
                    f"e.g. 4d6{keep}{1 if keep[0] == 'd' else 3}"
                )
            elif self.at("op", ">=", "<="):
                self.once(options, "compare", "Count once per group, e.g. 6d10>=8.")
                options["compare"] = self.take()[1]
                options["threshold"] = self.number(f"{COMPARE_HINT}, with a number")
            elif self.at("word") and self.peek()[1] in OTHER_OPTIONS:  # type: ignore[index]
                raise self.fail(OTHER_OPTIONS[self.peek()[1]].rstrip("."))  # type: ignore[index]
            else:
                break
        group = Dice(count, faces, **options)  # type: ignore[arg-type]
        _check_group(group)
        return group

    @staticmethod
    def once(options: dict[str, object], key: str, message: str) -> None:
        if key in options:
            raise RulesError(message)


def _check_group(group: Dice) -> None:
    name = group.text
    if group.explode and group.faces < 2:
        raise RulesError(f"Only dice of 2 or more faces can explode ({name}).")
    if group.keep and (group.explode or group.compare):
        raise RulesError(
            f"Keep or drop dice, or explode or count them, not both ({name}): e.g. 4d6kh3, "
            "3d6! or 6d10!>=8."
        )
    if group.keep in ("kh", "kl") and not 1 <= group.keep_count <= group.count:
        raise RulesError(
            f"{name} rolls {group.count} dice and can keep 1 to {group.count} of them."
            if group.count > 1
            else f"{name} rolls 1 die and can keep only it (kh1 or kl1)."
        )
    if group.keep in ("dh", "dl") and not 1 <= group.keep_count < group.count:
        raise RulesError(
            f"{name} rolls {group.count} dice; drop 1 to {group.count - 1} of them "
            "(at least one die must stay)."
            if group.count > 1
            else f"{name} would drop its only die; roll more dice, e.g. 2d20dl1."
        )
    if group.compare and not 1 <= group.threshold <= group.faces:
        raise RulesError(
            f"A d{group.faces} shows 1 to {group.faces}: count with a number in that range "
            f"({name})."
        )


def _has_dice(node: Node) -> bool:
    return next(_groups(node), None) is not None


def _replace_d20(node: Node, keep: str) -> Node:
    if node == Dice(1, 20):
        return Dice(2, 20, keep=keep, keep_count=1)
    if isinstance(node, Negative):
        return Negative(_replace_d20(node.operand, keep))
    if isinstance(node, Operation):
        return Operation(node.op, _replace_d20(node.left, keep), _replace_d20(node.right, keep))
    return node


def _precedence(node: Node) -> int:
    if isinstance(node, Operation):
        return 2 if node.op == "*" else 1
    return 3 if isinstance(node, Negative) else 4


def _render(node: Node, show, spaced: bool) -> str:
    """The expression with each group written by ``show`` (tree order: order of appearance)."""
    if isinstance(node, Number):
        return str(node.value)
    if isinstance(node, Dice):
        return show(node)
    if isinstance(node, Negative):
        inner = _render(node.operand, show, spaced)
        return f"-({inner})" if _precedence(node.operand) < 3 else f"-{inner}"
    level = _precedence(node)
    left = _render(node.left, show, spaced)
    right = _render(node.right, show, spaced)
    if _precedence(node.left) < level:
        left = f"({left})"
    if _precedence(node.right) <= level or isinstance(node.right, Negative):
        right = f"({right})"
    return f"{left} {node.op} {right}" if spaced else f"{left}{node.op}{right}"


def parse(text: str) -> Notation:
    """Read ``text`` (without ``/r``); raise RulesError with a sentence for the player."""
    if not isinstance(text, str):
        raise RulesError("Dice notation must be text.")
    if len(text) > MAX_TEXT:
        raise RulesError(f"Dice notation can be at most {MAX_TEXT} characters (got {len(text)}).")
    if not text.strip():
        raise RulesError(f"Nothing to roll: {EXAMPLES}.")
    if not text.isascii():
        odd = next(ch for ch in text if not ch.isascii())
        raise RulesError(f"{odd!r} is not part of dice notation; {EXAMPLES}.")
    parser = _Parser(text.lower())
    tree = parser.sum(0)
    advantage = target = None
    while parser.peek() is not None:
        if parser.at("word", *ADVANTAGE) and advantage is None:
            advantage = ADVANTAGE[parser.take()[1]]  # type: ignore[index]
        elif parser.at("word", "vs") and target is None:
            parser.take()
            target = parser.number(f"write the target after vs, e.g. vs 15 (1 to {MAX_TARGET})")
        else:
            raise parser.fail()
    if target is not None and not 1 <= target <= MAX_TARGET:
        raise RulesError(f"A target lies in 1..{MAX_TARGET} (got vs {target}).")
    if advantage:
        word = "Advantage" if advantage == "kh" else "Disadvantage"
        plain = sum(group == Dice(1, 20) for group in _groups(tree))
        if plain != 1:
            raise RulesError(
                f"{word} needs exactly one plain d20 in the roll, e.g. d20+5 "
                f"{'adv' if advantage == 'kh' else 'dis'} (found {plain})."
            )
        if parser.dice + 1 > MAX_DICE:
            raise RulesError(f"A roll can use at most {MAX_DICE} dice (got {parser.dice + 1}).")
        tree = _replace_d20(tree, advantage)
    notation = _notation(tree, target)
    if target is not None and chance_cost(notation) > MAX_CHANCE_COST:
        raise RulesError(
            "Too many dice to give the exact odds of a target: roll without 'vs', or fewer dice."
        )
    return notation


def _notation(tree: Node, target: int | None) -> Notation:
    """The notation of ``tree`` and ``target``, its total bounded (else RulesError)."""
    low, high = _bounds(tree)
    if low < -MAX_TOTAL or high > MAX_TOTAL:
        raise RulesError(
            f"The total could lie anywhere in {low}..{high}; keep it within "
            f"-{MAX_TOTAL}..{MAX_TOTAL}."
        )
    return Notation(text=_render(tree, lambda group: group.text, False), target=target, tree=tree)


def logged(expression: str, target: int | None = None) -> Notation:
    """The notation a free roll's log entry names, read back from its canonical ``expression``
    and its ``target`` (:meth:`Outcome.as_data`'s ``expression`` and ``target``), as
    :func:`roll` rolled it: what a roll whose seed is revealed is rolled again from
    (``rolls.dice``). Read as :func:`parse` reads, but the canonical text of a notation
    :func:`parse` accepted may be longer than :data:`MAX_TEXT` (``d6`` is written ``1d6``) and
    nest deeper than :data:`MAX_DEPTH` (``2--3`` is written ``2-(-3)``): those bound what a
    player types, so a logged expression is read within :data:`MAX_LOGGED_TEXT` and
    :data:`MAX_LOGGED_DEPTH` instead. The odds are not asked, so their cost is not bounded
    either. A canonical text is lower case and holds no ``adv``, ``dis`` or ``vs``."""
    if (
        not isinstance(expression, str)
        or not expression
        or len(expression) > MAX_LOGGED_TEXT
        or not expression.isascii()
    ):
        raise RulesError(f"A logged expression is 1 to {MAX_LOGGED_TEXT} ASCII characters.")
    if target is not None and (
        isinstance(target, bool) or not isinstance(target, int) or not 1 <= target <= MAX_TARGET
    ):
        raise RulesError(f"A target lies in 1..{MAX_TARGET} (got {target!r}).")
    parser = _Parser(expression, MAX_LOGGED_DEPTH)
    tree = parser.sum(0)
    if parser.peek() is not None:
        raise parser.fail()
    return _notation(tree, target)


# --- rolling --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RolledDie:
    """One face rolled; ``exploded`` when it triggered the next roll of its chain."""

    value: int
    dropped: bool = False
    exploded: bool = False
    hit: bool = False

    def as_data(self) -> dict:
        data: dict = {"value": self.value}
        for key in ("dropped", "exploded", "hit"):
            if getattr(self, key):
                data[key] = True
        return data

    def __str__(self) -> str:
        if self.dropped:
            return f"~~{self.value}~~"
        return f"{self.value}{'!' if self.exploded else ''}{'*' if self.hit else ''}"


@dataclass(frozen=True)
class RolledGroup:
    """A group's dice as rolled and the value it contributed."""

    notation: str
    faces: int
    dice: tuple[RolledDie, ...]
    value: int
    #: Fate dice: ``faces`` is 3, each die's value its face less 2 (-1, 0, +1).
    fate: bool = False

    def as_data(self) -> dict:
        data = {"notation": self.notation, "faces": self.faces}
        if self.fate:
            data["fate"] = True
        data["dice"] = [die.as_data() for die in self.dice]
        data["value"] = self.value
        return data

    def __str__(self) -> str:
        return f"{self.notation} ({', '.join(str(die) for die in self.dice)})"


@dataclass(frozen=True)
class Outcome:
    """A rolled notation. ``success`` is None without a target; ``chance`` is what the caller
    passed to :func:`roll` (None if nothing was passed)."""

    expression: str
    target: int | None
    total: int
    success: bool | None
    groups: tuple[RolledGroup, ...]
    detail: str
    chance: Fraction | None = None

    def as_data(self) -> dict:
        """The log entry's JSON: ``target``, ``success`` and ``chance`` only with a target
        (``chance`` only if it was given)."""
        data: dict = {"expression": self.expression}
        if self.target is not None:
            data["target"] = self.target
        data["total"] = self.total
        if self.target is not None:
            data["success"] = self.success
            if self.chance is not None:
                data["chance"] = odds.as_text(self.chance)
        data["groups"] = [group.as_data() for group in self.groups]
        data["detail"] = self.detail
        return data


def _roll_group(group: Dice, rng: Rng) -> RolledGroup:
    faces: list[tuple[int, bool]] = []  # (face, exploded)
    for _ in range(group.count):
        face = rng.randint(1, group.faces)
        rerolls = 0
        while group.explode and face == group.faces and rerolls < MAX_EXPLOSIONS:
            faces.append((face, True))
            face = rng.randint(1, group.faces)
            rerolls += 1
        faces.append((face, False))
    kept = set(range(len(faces)))
    if group.keep:
        highest_first = sorted(kept, key=lambda i: (-faces[i][0], i))
        lowest_first = sorted(kept, key=lambda i: (faces[i][0], i))
        order = highest_first if group.keep in ("kh", "dl") else lowest_first
        kept = set(order[: group.kept])
    shift = 2 if group.fate else 0  # a Fate die's d3 face 1, 2, 3 shows -1, 0, +1
    dice = tuple(
        RolledDie(
            value=face - shift,
            dropped=i not in kept,
            exploded=exploded,
            hit=bool(group.compare) and group.hits(face),
        )
        for i, (face, exploded) in enumerate(faces)
    )
    if group.compare:
        value = sum(die.hit for die in dice)
    else:
        value = sum(die.value for die in dice if not die.dropped)
    return RolledGroup(
        notation=group.text, faces=group.faces, dice=dice, value=value, fate=group.fate
    )


def _evaluate(node: Node, rng: Rng, rolled: list[RolledGroup]) -> int:
    if isinstance(node, Number):
        return node.value
    if isinstance(node, Dice):
        rolled.append(_roll_group(node, rng))
        return rolled[-1].value
    if isinstance(node, Negative):
        return -_evaluate(node.operand, rng, rolled)
    left = _evaluate(node.left, rng, rolled)
    right = _evaluate(node.right, rng, rolled)
    if node.op == "+":
        return left + right
    if node.op == "-":
        return left - right
    return left * right


def roll(notation: Notation, rng: Rng, chance: Fraction | None = None) -> Outcome:
    """Roll ``notation`` with ``rng`` (one ``rng.randint(1, F)`` per die, in order).

    ``chance`` is the notation's :func:`chance`, computed by the caller (``roll`` never computes
    it); it is stored in the outcome and shown by ``as_data`` when the notation has a target.
    """
    if not isinstance(notation, Notation):
        raise RulesError("Only a parsed notation can be rolled.")
    if chance is not None and (
        not isinstance(chance, Fraction) or not 0 <= chance <= 1 or notation.target is None
    ):
        raise RulesError("A chance is a Fraction in 0..1, and only for a roll with a target.")
    rolled: list[RolledGroup] = []
    total = _evaluate(notation.tree, rng, rolled)
    shown = iter(rolled)
    detail = f"{_render(notation.tree, lambda group: str(next(shown)), True)} = {total}"
    success = None
    if notation.target is not None:
        success = total >= notation.target
        detail += f" vs {notation.target}: {'success' if success else 'failure'}"
    return Outcome(
        expression=notation.text,
        target=notation.target,
        total=total,
        success=success,
        groups=tuple(rolled),
        detail=detail,
        chance=chance,
    )


# --- bounds and the exact odds --------------------------------------------------------------------


def _group_bounds(group: Dice) -> tuple[int, int]:
    """The lowest and highest value a group can contribute (a Fate group's as its d3 faces,
    1 to 3 a die: :func:`_linear` holds its constant)."""
    cap = MAX_EXPLOSIONS + 1
    if group.compare:
        every = group.hits(1) and group.hits(group.faces)  # then every face counts
        per_die = cap if group.explode and group.hits(group.faces) else 1
        return (group.count if every else 0), group.count * per_die
    if group.explode:
        return group.count, group.count * cap * group.faces
    return group.kept, group.kept * group.faces


def _linear(node: Node) -> tuple[int, list[tuple[int, Dice]]]:
    """The total as ``(c0, [(c_i, group_i)])``: ``c0 + sum(c_i * value of group_i)``."""
    if isinstance(node, Number):
        return node.value, []
    if isinstance(node, Dice):
        # A Fate group's weights are its d3 faces' (each 2 above its value): its constant -2N.
        return (-2 * node.count if node.fate else 0), [(1, node)]
    if isinstance(node, Negative):
        constant, terms = _linear(node.operand)
        return -constant, [(-c, group) for c, group in terms]
    left_constant, left = _linear(node.left)
    right_constant, right = _linear(node.right)
    if node.op == "+":
        return left_constant + right_constant, left + right
    if node.op == "-":
        return left_constant - right_constant, left + [(-c, group) for c, group in right]
    if not left:  # "*": one side has no dice (the parser makes sure)
        return left_constant * right_constant, [(left_constant * c, g) for c, g in right]
    return left_constant * right_constant, [(right_constant * c, g) for c, g in left]


def _side_bounds(terms: list[tuple[int, Dice]]) -> tuple[int, int]:
    bounds = [_group_bounds(group) for _, group in terms]
    low = sum(c * lo for (c, _), (lo, _) in zip(terms, bounds, strict=True))
    high = sum(c * hi for (c, _), (_, hi) in zip(terms, bounds, strict=True))
    return low, high


def _bounds(tree: Node) -> tuple[int, int]:
    constant, terms = _linear(tree)
    positive = [(c, group) for c, group in terms if c > 0]
    negative = [(-c, group) for c, group in terms if c < 0]
    p_low, p_high = _side_bounds(positive)
    q_low, q_high = _side_bounds(negative)
    return constant + p_low - q_high, constant + p_high - q_low


def _plan(notation: Notation):
    """The odds' sides and clamps, or a decided answer: ``(answer, None)`` or ``(None, plan)``."""
    constant, terms = _linear(notation.tree)
    goal = notation.target - constant  # success iff P - Q >= goal
    positive = [(c, group) for c, group in terms if c > 0]
    negative = [(-c, group) for c, group in terms if c < 0]
    p_low, p_high = _side_bounds(positive)
    q_low, q_high = _side_bounds(negative)
    if p_low - q_high >= goal:
        return Fraction(1), None
    if p_high - q_low < goal:
        return Fraction(0), None
    # P >= goal + q_high succeeds whatever Q; Q >= p_high - goal + 1 fails whatever P.
    return None, (goal, positive, goal + q_high, negative, p_high - goal + 1)


def _whole_bits(group: Dice) -> int:
    """Bits of the whole a group's weights are counted over (``F**dice``, with explosions
    ``F**(dice * (MAX_EXPLOSIONS + 1))``)."""
    rolls = group.count * (MAX_EXPLOSIONS + 1 if group.explode else 1)
    return rolls * group.faces.bit_length()


def _big(bits: int, times_bits: int = 0) -> int:
    """How many small steps one step costs on weights of ``bits`` bits, multiplied by weights of
    ``times_bits`` bits. Measured: a step on small integers takes ~150 ns, adding ~4096 bits
    about as long again, and multiplying a-bit by b-bit integers about ``a * b / 2**17`` steps
    (CPython multiplies 30-bit digits, ~1 ns a pair)."""
    return 1 + bits // 4096 + bits * times_bits // 2**17


def _kept_steps(group: Dice, size: int) -> tuple[int, int]:
    """(states, moves) of :func:`_kept_sums`: with ``m`` dice placed above a face ``d`` faces
    below the kept end, their sum takes at most ``m * d + 1`` values (and at most ``size``);
    each such state moves to at most ``kept - m`` others."""
    faces, kept = group.faces, group.kept
    states = moves = 0
    for m in range(kept):
        if m == 0:
            count = faces
        else:
            spread = min(faces, -(-(size - 1) // m))  # faces d with m * d + 1 < size
            count = spread + m * spread * (spread - 1) // 2 + (faces - spread) * size
        states += count
        moves += count * (kept - m)
    return states, moves


def _group_cost(group: Dice, clamp: int) -> int:
    """Estimated steps of :func:`_group_weights` (an upper bound on its inner loops), weighted
    for the size of its integers."""
    low, high = _group_bounds(group)
    size = min(high, clamp) + 1
    n, faces, blocks = group.count, group.faces, MAX_EXPLOSIONS + 2
    bits, face_bits = _whole_bits(group), faces.bit_length()
    if group.compare and not group.explode:
        return (n + 1) * _big(bits, bits)
    if group.compare or group.explode:
        # a convolution (or block sums) over the chain's cap, by weights up to F**(cap+1)
        return n * size * blocks * _big(bits, blocks * face_bits)
    if group.keep and group.kept < group.count:
        states, moves = _kept_steps(group, size)
        # moves multiply by comb(left, c); finishes by a power of the faces left (each side at
        # most ``kept * log2(n)`` bits, the other up to the whole)
        times = _big(bits, group.kept * n.bit_length())
        return 2 * (moves + states + faces * (group.kept + 1) ** 2) * times  # dict steps
    return n * (size + faces) * _big(bits)


def _side_cost(terms: list[tuple[int, Dice]], clamp: int) -> int:
    cost, running, bits = 0, 1, 0
    for c, group in terms:
        group_clamp = -(-clamp // c)
        low, high = _group_bounds(group)
        cost += _group_cost(group, group_clamp)
        values = min(high, group_clamp) - low + 1
        cost += running * values * _big(bits, _whole_bits(group))
        bits += _whole_bits(group)
        running = min(running * values, clamp + 1)
    return cost + running


def chance_cost(notation: Notation) -> int:
    """The estimated work of :func:`chance` (0 without a target): :func:`parse` refuses a target
    above :data:`MAX_CHANCE_COST`."""
    if notation.target is None:
        return 0
    answer, plan = _plan(notation)
    if plan is None:
        return 0
    _, positive, p_clamp, negative, q_clamp = plan
    return _side_cost(positive, p_clamp) + _side_cost(negative, q_clamp)


def _window_sums(weights: list[int], width: int, end: int) -> list[int]:
    """``[sum(weights[max(b - width, 0) : b]) for b in range(end)]`` in linear time."""
    prefix = list(accumulate(weights, initial=0))
    old = len(weights)
    high = prefix[: min(end, old + 1)]
    high += [prefix[old]] * (end - len(high))
    low = [0] * min(width + 1, end)
    low += prefix[1 : 1 + max(0, min(end - len(low), old))]
    low += [prefix[old]] * (end - len(low))
    return list(map(sub, high, low))


def _add_scaled(into: list[int], start: int, values: list[int], times: int) -> None:
    """``into[start + i] += times * values[i]`` for the ``values`` that fit."""
    stop = min(len(into), start + len(values))
    if stop > start:
        part = values[: stop - start]
        if times != 1:
            part = list(map(mul, part, repeat(times)))
        into[start:stop] = map(add, into[start:stop], part)


def _uniform_sums(count: int, faces: int, clamp: int) -> tuple[list[int], int]:
    """Weights of the sum of ``count`` dF by value (index), index ``clamp`` holding every value
    >= it; and their whole ``faces**count``. A value ``s`` comes from an old value in
    ``s-F..s-1``, so each die is one pass of window sums."""
    weights, whole = [1], 1
    for _ in range(count):
        top = len(weights) - 1 + faces
        end = clamp if top >= clamp else top + 1
        new = _window_sums(weights, faces, end)
        whole *= faces
        if top >= clamp:
            new.append(whole - sum(new))
        weights = new
    return weights, whole


def _exploding_sums(count: int, faces: int, clamp: int) -> tuple[list[int], int]:
    """As :func:`_uniform_sums` for exploding dice: one die's total is ``k*F + r`` (``k`` maxima
    then ``r`` in ``1..F-1``, weight ``F**(cap-k)``) or ``(cap+1)*F`` (every roll a maximum,
    weight 1), over ``F**(cap+1)``. Each block ``k`` is one shifted window sum."""
    cap = MAX_EXPLOSIONS
    weights, whole = [1], 1
    for _ in range(count):
        top = len(weights) - 1 + (cap + 1) * faces
        end = clamp if top >= clamp else top + 1
        window = _window_sums(weights, faces - 1, end)  # old values b-F+1 .. b-1
        new = [0] * end
        for k in range(cap + 1):
            _add_scaled(new, k * faces, window, faces ** (cap - k))
        _add_scaled(new, (cap + 1) * faces, weights, 1)
        whole *= faces ** (cap + 1)
        if top >= clamp:
            new.append(whole - sum(new))
        weights = new
    return weights, whole


def _convolve_dice(per_die: dict[int, int], die_whole: int, count: int, clamp: int):
    """``count`` independent copies of one die's weights, summed, clamped at ``clamp``."""
    weights: dict[int, int] = {0: 1}
    for _ in range(count):
        new: dict[int, int] = defaultdict(int)
        for value, ways in weights.items():
            for more, times in per_die.items():
                new[min(value + more, clamp)] += ways * times
        weights = new
    return weights, die_whole**count


def _counted(group: Dice, clamp: int) -> tuple[dict[int, int], int]:
    """Weights of the number of dice counted (explosions included), clamped at ``clamp``."""
    faces, n = group.faces, group.count
    hit_faces = sum(group.hits(face) for face in range(1, faces + 1))
    if not group.explode:
        weights: dict[int, int] = defaultdict(int)
        for k in range(n + 1):
            weights[min(k, clamp)] += comb(n, k) * hit_faces**k * (faces - hit_faces) ** (n - k)
        return _clamp_dict(weights, clamp), faces**n
    cap = MAX_EXPLOSIONS
    top = int(group.hits(faces))  # the maximum face counts or not
    low_hits = hit_faces - top  # faces below the maximum that count
    per_die: dict[int, int] = defaultdict(int)
    for k in range(cap + 1):  # k maxima, then a face below the maximum
        per_die[k * top + 1] += low_hits * faces ** (cap - k)
        per_die[k * top] += (faces - 1 - low_hits) * faces ** (cap - k)
    per_die[(cap + 1) * top] += 1  # every roll at the maximum: the chain is capped
    return _convolve_dice(_clamp_dict(per_die, clamp), faces ** (cap + 1), n, clamp)


def _clamp_dict(weights: dict[int, int], clamp: int) -> dict[int, int]:
    clamped: dict[int, int] = defaultdict(int)
    for value, ways in weights.items():
        if ways:
            clamped[min(value, clamp)] += ways
    return dict(clamped)


def _kept_sums(group: Dice, clamp: int) -> tuple[dict[int, int], int]:
    """Weights of the sum of the kept dice. Faces are taken from the kept end (highest first for
    kh/dl): a state is (dice placed so far, their kept sum); once ``kept`` dice are placed, the
    rest show any face still to come."""
    n, faces, kept = group.count, group.faces, group.kept
    highest = group.keep in ("kh", "dl")
    order = range(faces, 0, -1) if highest else range(1, faces + 1)
    states: dict[tuple[int, int], int] = {(0, 0): 1}
    result: dict[int, int] = defaultdict(int)
    for face in order:
        rest = face - 1 if highest else faces - face  # faces not yet taken
        # ways for the n - placed dice left to bring the placed ones to `kept` or more here
        # sum(comb(left, c) * rest**(left - c) for c >= kept - placed), by the binomial theorem
        finished = [
            (rest + 1) ** (n - placed)
            - sum(comb(n - placed, c) * rest ** (n - placed - c) for c in range(kept - placed))
            for placed in range(kept)
        ]
        new: dict[tuple[int, int], int] = defaultdict(int)
        for (placed, total), ways in states.items():
            left = n - placed
            for c in range(kept - placed):  # still fewer than `kept` placed after this face
                new[(placed + c, min(total + c * face, clamp))] += ways * comb(left, c)
            if finished[placed]:
                result[min(total + (kept - placed) * face, clamp)] += ways * finished[placed]
        states = new
    return dict(result), faces**n


def _group_weights(group: Dice, clamp: int) -> tuple[dict[int, int], int]:
    """A group's value distribution as integer weights over a whole, values >= clamp merged."""
    if group.compare:
        return _counted(group, clamp)
    if group.keep and group.kept < group.count:  # keeping every die is a plain sum
        return _kept_sums(group, clamp)
    if group.explode:
        weights, whole = _exploding_sums(group.count, group.faces, clamp)
    else:
        weights, whole = _uniform_sums(group.count, group.faces, clamp)
    return {value: ways for value, ways in enumerate(weights) if ways}, whole


def _side_weights(terms: list[tuple[int, Dice]], clamp: int) -> tuple[dict[int, int], int]:
    """The distribution of ``sum(c * group)`` (all ``c > 0``), values >= clamp merged."""
    weights: dict[int, int] = {0: 1}
    whole = 1
    for c, group in terms:
        group_clamp = -(-clamp // c)  # c * v >= clamp exactly when v >= group_clamp
        group_weights, group_whole = _group_weights(group, group_clamp)
        new: dict[int, int] = defaultdict(int)
        for value, ways in weights.items():
            for more, times in group_weights.items():
                reached = value + c * more
                new[reached if reached < clamp else clamp] += ways * times
        weights = new
        whole *= group_whole
    return weights, whole


def chance(notation: Notation) -> Fraction | None:
    """Exact P(total >= target) for the procedure :func:`roll` uses, or None without a target."""
    if notation.target is None:
        return None
    if chance_cost(notation) > MAX_CHANCE_COST:
        raise RulesError(
            "Too many dice to give the exact odds of a target: roll without 'vs', or fewer dice."
        )
    answer, plan = _plan(notation)
    if plan is not None:
        goal, positive, p_clamp, negative, q_clamp = plan
        p_weights, p_whole = _side_weights(positive, p_clamp)
        q_weights, q_whole = _side_weights(negative, q_clamp)
        values = sorted(p_weights)
        tails = list(accumulate(reversed([p_weights[v] for v in values])))[::-1] + [0]
        wins = 0
        for q, ways in q_weights.items():
            if q < q_clamp:  # the clamp bucket of Q fails whatever P shows
                wins += ways * tails[bisect_left(values, goal + q)]
        answer = Fraction(wins, p_whole * q_whole)
    return answer
