"""How dice look on screen: a d10's 10 is its face marked 0, an exploded chain is 6 → 3 = 9."""

from fractions import Fraction

from django import template

register = template.Library()


@register.filter
def d10face(face):
    return "0" if face == 10 else str(face)


@register.filter
def chain(faces, sides=6):
    shown = [d10face(f) if int(sides) == 10 else str(f) for f in faces]
    if len(faces) == 1:
        return shown[0]
    return f"{' → '.join(shown)} = {sum(faces)}"


@register.filter
def percent(value):
    """A probability (a Fraction or its string) as a percentage with one decimal."""
    p = Fraction(value) * 100
    if 0 < p < Fraction(1, 10):
        return "<0.1%"
    if 99.9 < p < 100:
        return ">99.9%"
    return f"{float(p):.1f}%"
