"""The pure rules core: standard library only, no web, no database, no clock reads.

Time always comes in as an argument (seconds since the epoch, as a float); chance as a seed the
server draws and the event keeps. The modes the app plays are registered here.
"""

from . import airraid, battleship, vestorsjo
from .modes import MODES, GameMode, find_mode, mode_of, register

register(airraid.GAME)
register(battleship.GAME)
register(vestorsjo.GAME)

__all__ = ["MODES", "GameMode", "airraid", "battleship", "find_mode", "mode_of", "register", "vestorsjo"]
