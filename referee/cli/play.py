"""`referee play`: a scripted game of any mode, played as the server plays it, on a virtual clock.

A play file holds one JSON object a line (docs/actions.md): an optional first line with the
create_game action's options, then actions as the API takes them with the acting role, lines
that only let time pass, and checks of the outcome. Each line goes through the real path: the
`Store` on a private in-memory SQLite database and the play service (`Play`), so what is printed
is what the server would store, and the computer's moves follow (`Play.follow`) and the round
clock acts (`Play.tick`) exactly as on the server. Only time and chance differ: the clock is
virtual (it starts at 0 and moves only when a line says), and with a seed every seed the server
would draw comes from `random.Random(seed)` instead, so one file and one seed print the same
bytes every time.

The file's lines are read in `play_lines.py`, the ruleset, its map and the create_game action
in `play_setup.py`, and the game played in `play_game.py` (`ScriptGame`); this module is the
command: it reads the file and prints one JSON line per record.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TextIO

from referee.cli.play_game import ScriptGame
from referee.cli.play_lines import numbered_lines
from referee.cli.play_setup import SetupError, read_ruleset_file, ruleset_path


def dumps(record: Mapping[str, Any]) -> str:
    """Write one output record as one JSON line."""
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"))


def play_text(ruleset: str, text: str, *, seed: int | None = None, out: TextIO, maps: Path | None = None) -> int:
    """Play a play file's text against a fresh game of the ruleset's mode; print each record; return the exit code."""
    data, parsed = read_ruleset_file(ruleset_path(ruleset))
    game = ScriptGame(str(data["ruleset"]["mode"]), data, parsed, seed=seed, maps=maps)
    try:
        for record in game.run(numbered_lines(text)):
            out.write(dumps(record) + "\n")
    finally:
        game.close()
    return 0 if game.unexpected == 0 else 1


def play_file(ruleset: str, actions: str, *, seed: int | None = None, out: TextIO, err: TextIO) -> int:
    """Run `referee play RULESET ACTIONS.jsonl` ("-": standard input): 0 when every line went as expected, else 1."""
    try:
        if actions == "-":
            text = sys.stdin.read()
        else:
            try:
                text = Path(actions).read_text(encoding="utf-8")
            except OSError as exc:
                raise SetupError(f"{actions}: {exc.strerror or exc}") from exc
            except UnicodeDecodeError as exc:
                raise SetupError(f"{actions}: not UTF-8 text (byte {exc.start + 1})") from exc
        return play_text(ruleset, text, seed=seed, out=out)
    except SetupError as exc:
        err.write(f"{exc}\n")
        return 1
