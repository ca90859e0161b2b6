"""``{% calculators calc as shown %}``: the odds calculators of the rules page, one per system
that offers one, each with the values typed and the chance shown when it is the one asked
(``calc``: {"system": its key, "values", "result"}, or nothing)."""

from django import template

from ..forms import calculators as offered

register = template.Library()


@register.simple_tag
def calculators(calc=None):
    """[(system, values, result)] for each system's calculator (values and result None but for
    the one ``calc`` asked)."""
    calc = calc or {}
    shown = []
    for system in offered():
        if calc.get("system") == system.key:
            shown.append((system, calc.get("values"), calc.get("result")))
        else:
            shown.append((system, None, None))
    return shown
