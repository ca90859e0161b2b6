"""The systems' fixtures: the sheet tests' characters (tests/sheets/conftest.py), for the tests of
a system's own views (its sheet section's writes, its GM panel sections)."""

from tests.sheets.conftest import (  # noqa: F401 (fixtures)
    ana_hero,
    ana_mage,
    ben_hero,
    ben_mage,
    elsewhere_hero,
    elsewhere_mage,
)
