"""The public odds calculator of the insight pages: each system offers its own
(``calculator``, a form of numbers whose ``odds()`` the rules engine computes; None: none), and
the engine refuses what the rules refuse."""

from rolls.forms import first_error
from rolls.systems import SYSTEMS
from rules import RulesError


def calculators():
    """The systems that offer a calculator, in the order they are registered."""
    return [system for system in SYSTEMS.values() if system.calculator is not None]


def calculate(key, data):
    """The odds the calculator of the system ``key`` shows for ``data`` (a GET)."""
    offered = calculators()
    system = next((system for system in offered if system.key == key), None)
    if system is None:
        names = " or the ".join(system.name for system in offered)
        return {"error": f"Choose the {names} calculator."}
    form = system.calculator(data)
    if not form.is_valid():
        return {"error": first_error(form)}
    try:
        return form.odds()
    except RulesError as error:
        return {"error": str(error)}
