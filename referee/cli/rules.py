"""The `referee rules` and `referee sea` commands: check a ruleset and its seas before a game night."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import click

from referee.rules.battleship import BattleshipRuleset
from referee.rules.errors import MalformedAction, RulesetError
from referee.rules.placement import Impossible
from referee.rules.ruleset import LIMITS_PATH, Ruleset, limits, load_ruleset
from referee.rules.sea import random_sea, sea_to_text, ships_from_text


def _load(path: str) -> Ruleset:
    try:
        return load_ruleset(path)
    except RulesetError as exc:
        for line in exc.lines():
            click.echo(line)
        sys.exit(1)


def _fixed_sea(ruleset: BattleshipRuleset, size: int | None, players: int | None = None) -> tuple[int, tuple[str, ...]]:
    """Return a Battleship ruleset's one sea and fleet, refusing options that would pick another."""
    if players is not None:
        raise click.UsageError(
            f"--players picks an air-raid sea by team size; the {ruleset.id} ruleset has one sea, "
            f"{ruleset.size}×{ruleset.size}: leave it out"
        )
    if size is not None and size != ruleset.size:
        raise click.UsageError(
            f"the {ruleset.id} ruleset fixes the sea at {ruleset.size}×{ruleset.size}, not {size}×{size}: "
            "leave out --size"
        )
    return ruleset.size, ruleset.fleet


class _ShowsBounds(click.Command):
    """A command whose help ends with every bound of config/ruleset_limits.toml."""

    def format_epilog(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        # Read when the help is shown, not on import: a broken limits file only breaks this.
        try:
            lines = limits().lines()
        except RulesetError as exc:
            lines = exc.lines()
        with formatter.section(f"Bounds ({LIMITS_PATH.name})"):
            formatter.write_text("A number outside its bound is a problem: FILE: key: too large: N (at most M).")
            for line in lines:
                formatter.write_text(line)
        super().format_epilog(ctx, formatter)


@click.group("rules")
def rules_group() -> None:
    """Check ruleset files."""


@rules_group.command("check", cls=_ShowsBounds)
@click.argument("file", type=click.Path(dir_okay=False))
def rules_check(file: str) -> None:
    """Check a ruleset file: exit 0 with a summary, or 1 with one line per problem.

    Every number in a ruleset has bounds a real game needs (below); the check that a fleet fits
    its sea has a work budget, and says "could not decide in time" when it runs out.
    """
    ruleset = _load(file)
    click.echo(f"{file}: ok: {ruleset.summary()}")


@click.group("sea")
def sea_group() -> None:
    """Place and check seas for a ruleset."""


@sea_group.command("place")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option(
    "--size", type=click.IntRange(2, 26), help="Sea size (squares per side); a Battleship ruleset fixes its own."
)
@click.option(
    "--players", type=click.IntRange(1, 100), help="Team size; picks the sea from an air-raid ruleset's table."
)
@click.option("--seed", type=int, default=None, help="Seed: the same seed gives the same sea.")
def sea_place(file: str, size: int | None, players: int | None, seed: int | None) -> None:
    """Print a legal random sea, one line per row: . for water, a letter per ship."""
    if size is not None and players is not None:
        raise click.UsageError("give --size or --players, not both")
    ruleset = _load(file)
    if isinstance(ruleset, BattleshipRuleset):
        size, fleet = _fixed_sea(ruleset, size, players)
    else:
        size, fleet = ruleset.sea_for(size=size, players=players)
    rng = random.Random(seed)
    try:
        ships = random_sea(ruleset.grid(size), ruleset.sea, fleet, rng)
    except Impossible as exc:
        click.echo(f"{exc.code}: {exc.message}")  # "impossible", or "undecided" when the search ran out of work
        sys.exit(1)
    click.echo(sea_to_text(ruleset.grid(size), ships))


@sea_group.command("check")
@click.argument("file", type=click.Path(dir_okay=False))
@click.argument("sea_file", type=click.Path(dir_okay=False))
@click.option("--size", type=click.IntRange(2, 26), help="The sea size the game asks for.")
def sea_check(file: str, sea_file: str, size: int | None) -> None:
    """Check a sea written as text: exit 0 with "ok", or 1 with every reason."""
    ruleset = _load(file)
    if isinstance(ruleset, BattleshipRuleset):
        # The ruleset's own size: a sea text of another size is refused with the reason.
        size = _fixed_sea(ruleset, size)[0]
    try:
        text = Path(sea_file).read_text(encoding="utf-8")
    except OSError as exc:
        click.echo(f"{sea_file}: {exc.strerror or exc}")
        sys.exit(1)
    try:
        fleet = (
            ruleset.fleet
            if isinstance(ruleset, BattleshipRuleset)
            else ruleset.sea_for(size=size or _text_size(text))[1]
        )
        _grid, _ships, problems = ships_from_text(text, ruleset.sea, fleet, size)
    except MalformedAction as exc:
        click.echo(f"{sea_file}: {exc.message}")
        sys.exit(1)
    if problems:
        for problem in problems:
            click.echo(problem.message)
        sys.exit(1)
    click.echo("ok")


def _text_size(text: str) -> int:
    return max(2, min(26, len([line for line in text.splitlines() if line.strip()])))
