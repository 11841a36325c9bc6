"""The game's own words, as they appear inside messages of the rules core.

The core names corridors, planes and answers in English ids ("upper", "bomber", "water");
listing them here puts them in the translation catalogue, and `referee.rules.errors.localize`
translates such values when it translates a message.
"""

from __future__ import annotations


def N_(text: str) -> str:
    """Mark a word for the catalogue without translating it here."""
    return text


WORDS = [
    N_("upper"),
    N_("middle"),
    N_("lower"),
    N_("fighter"),
    N_("bomber"),
    N_("water"),
    N_("fight"),
    N_("already_hit"),
    N_("hit"),
    N_("sunk"),
    N_("left"),
    N_("shot_down"),
    N_("planned"),
    N_("airborne"),
    N_("bombing"),
    N_("landed"),
    N_("planning"),
    N_("closed"),
]
