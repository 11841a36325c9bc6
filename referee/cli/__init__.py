"""The `referee` command: `referee serve` starts everything on the laptop with one command."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import ClassVar, NoReturn

import click
from flask import Flask

from referee.cli.links import print_addresses, print_link, referee_link
from referee.cli.servers import gunicorn_available, listen, run_gevent, run_gunicorn, run_werkzeug

# `referee serve --server gevent` re-executes itself through referee/cli/serve_gevent.py, which
# patches the standard library first; its arguments travel in this variable (see that module).
SERVE_ARGS_VARIABLE = "_REFEREE_SERVE_ARGS"


def _make_app(
    instance_path: str | None,
    database_url: str | None,
    redis_url: str | None,
    *,
    async_mode: str = "threading",
    must_exist: bool = True,
) -> Flask:
    """Create the app (which migrates the database) with the CLI's overrides; a user's mistake is one line.

    The round clock is not started here: the server starts it in the process that serves.
    `async_mode` is Socket.IO's: "gevent" only in a process patched by referee/cli/serve_gevent.py.
    Only `serve` makes an instance folder (`must_exist=False`): the other commands would make a new,
    empty one for a mistyped path and print a link no server knows.
    """
    from sqlalchemy.exc import ArgumentError, DBAPIError, NoSuchModuleError

    from referee.web import create_app

    folder = resolve_instance_path(instance_path)
    if must_exist and not folder.is_dir():
        raise click.ClickException(
            f"there is no instance folder {folder}: `referee serve` makes it, or give the --instance-path "
            "the server uses"
        )
    try:
        return create_app(
            instance_path=folder,
            overrides={
                "DATABASE_URL": database_url,
                "REDIS_URL": redis_url,
                "ROUND_CLOCK": False,
                "SOCKETIO_ASYNC_MODE": async_mode,
            },
        )
    except (ArgumentError, NoSuchModuleError) as exc:
        raise click.ClickException(
            f"the database URL is not one referee can open ({_first_line(exc)}); for example "
            "postgresql+psycopg://referee:PASSWORD@127.0.0.1/referee, or leave it out for SQLite"
        ) from None
    except DBAPIError as exc:
        raise click.ClickException(
            f"cannot open the database {_safe_url(database_url, folder)}: {_first_line(exc.orig or exc)}"
        ) from None
    except ModuleNotFoundError as exc:
        if exc.name in ("psycopg", "psycopg2", "redis"):
            extra = "redis" if exc.name == "redis" else "postgres"
            raise click.ClickException(
                f"{exc.name} is not installed: pip install 'referee[{extra}]' (or {exc.name}) into this environment"
            ) from None
        raise
    except OSError as exc:
        where = exc.filename or folder
        raise click.ClickException(f"cannot use the instance folder {where}: {exc.strerror or exc}") from None


def resolve_instance_path(instance_path: str | None) -> Path:
    """Return the instance folder every command uses: the one given, else Flask's default for this install.

    Flask's default is `<prefix>/var/referee-instance` for an installed referee, `instance/` beside
    a source tree's package. `serve` passes the folder it resolved to the process it re-executes,
    so both always agree.
    """
    if instance_path:
        return Path(instance_path).expanduser().resolve()
    return Path(Flask("referee").instance_path).resolve()


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def _safe_url(database_url: str | None, folder: Path) -> str:
    """The database URL as it may be printed: without its password."""
    from sqlalchemy.engine import make_url

    if not database_url:
        return str(folder / "referee.sqlite3")
    try:
        return make_url(database_url).render_as_string(hide_password=True)
    except Exception:  # noqa: BLE001 - only for a message: an unparsable URL was refused before
        return "(the one given)"


def _issue_link(app: Flask, host: str, port: int) -> str:
    from sqlalchemy.exc import DBAPIError

    from referee.web.access import issue_server_referee_token
    from referee.web.extensions import engine_of

    try:
        return referee_link(host, port, issue_server_referee_token(engine_of(app)))
    except DBAPIError as exc:  # a full or failing disk, a database gone away: nothing was stored
        raise click.ClickException(
            f"cannot store the referee's link in {_safe_url(app.config.get('DATABASE_URL'), Path(app.instance_path))}: "
            f"{_first_line(exc.orig or exc)}"
        ) from None


def _set_log_level(_ctx: click.Context, _param: click.Parameter, value: str) -> str:
    """Set up logging before any command runs (`referee.log_config`); a bad level is a usage error."""
    from referee import log_config

    try:
        log_config.configure(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None
    global _log_level
    _log_level = value
    return value


# The level `--log-level` set: `serve` re-executes itself (under gevent) with the same one.
_log_level = "INFO"


class _Commands(click.Group):
    """The `referee` group; `rules` and `sea` are imported only when asked for.

    They bring the whole rules core (0.3 s), which `serve` imports again in the process it
    re-executes: loaded eagerly, every start paid it twice (Click's "lazily loading subcommands").
    """

    LAZY: ClassVar[dict[str, str]] = {"rules": "rules_group", "sea": "sea_group"}  # in referee.cli.rules

    def list_commands(self, ctx: click.Context) -> list[str]:
        """Every command's name, the lazy ones too."""
        return sorted([*super().list_commands(ctx), *self.LAZY])

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        """The command of that name, importing a lazy one now."""
        if cmd_name in self.LAZY:
            from referee.cli import rules as rules_cli

            command: click.Command = getattr(rules_cli, self.LAZY[cmd_name])
            return command
        return super().get_command(ctx, cmd_name)


@click.group(cls=_Commands)
@click.version_option(package_name="referee")
@click.option(
    "--log-level",
    envvar="REFEREE_LOG_LEVEL",
    default="INFO",
    show_default=True,
    expose_value=False,
    is_eager=True,
    callback=_set_log_level,
    help="What the terminal shows: DEBUG, INFO, WARNING or ERROR (each line: time, level, logger, message).",
)
def main() -> None:
    """Referee and scorekeeping for live team games."""


@main.command("play")
@click.argument("ruleset")
@click.argument("actions", type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--seed", type=int, default=None, help="Draw every server seed from this seed: the same output each run.")
def play_script(ruleset: str, actions: str, seed: int | None) -> None:
    """Play a file of actions (JSON lines) against a fresh game; print each answer as a JSON line.

    RULESET is a ruleset file, or the name of one in config/rulesets/ (zeeslag). Exit 0 when every
    line was accepted or refused as its "expect" says, else 1. The file's form: docs/actions.md.
    """
    from referee.cli.play import play_file

    sys.exit(play_file(ruleset, actions, seed=seed, out=sys.stdout, err=sys.stderr))


@main.group("map")
def map_group() -> None:
    """Check map files."""


@map_group.command("check")
@click.argument("file")
def map_check(file: str) -> None:
    """Check a map file: exit 0 with a summary, or 1 with one line per problem."""
    from referee.cli.maps import check_command

    sys.exit(check_command(file))


PORT = click.IntRange(1, 65535)

_instance_option = click.option(
    "--instance-path",
    envvar="REFEREE_INSTANCE_PATH",
    type=click.Path(file_okay=False),
    help="Folder for the database, secret key and instance referee.toml.",
)
_database_option = click.option(
    "--database-url", envvar="REFEREE_DATABASE_URL", help="SQLAlchemy URL; default SQLite in the instance folder."
)


def _redis_url(_ctx: click.Context, _param: click.Parameter, value: str | None) -> str | None:
    if value and value.split("://", 1)[0] not in ("redis", "rediss", "unix"):
        raise click.BadParameter("a Redis URL, such as redis://127.0.0.1:6379/0")
    return value


_redis_option = click.option(
    "--redis-url",
    envvar="REFEREE_REDIS_URL",
    callback=_redis_url,
    help="Redis URL for the Socket.IO message queue (scale-out).",
)


@main.command()
@click.option("--host", envvar="REFEREE_HOST", default="0.0.0.0", show_default=True, help="Address to listen on.")
@click.option("--port", envvar="REFEREE_PORT", default=5000, show_default=True, type=PORT, help="Port to listen on.")
@_database_option
@_redis_option
@_instance_option
@click.option(
    "--server",
    type=click.Choice(["gevent", "gunicorn", "werkzeug"]),
    default="gevent",
    show_default=True,
    help="gevent: one process where an open websocket costs a greenlet, with per-address caps and a header "
    "timeout. gunicorn: the older threaded worker, one thread per open websocket and no caps (POSIX). "
    "werkzeug: Werkzeug's threaded server.",
)
@click.option(
    "--threads",
    default=100,
    show_default=True,
    type=int,
    help="--server gunicorn: worker threads (one per open websocket).",
)
@click.option(
    "--access-log",
    envvar="REFEREE_ACCESS_LOG",
    is_flag=True,
    help="Log one line per request (method, path with tokens redacted, status, time).",
)
def serve(
    host: str,
    port: int,
    database_url: str | None,
    redis_url: str | None,
    instance_path: str | None,
    server: str,
    threads: int,
    access_log: bool,
) -> None:
    """Migrate the database, print the referee link and its QR code, and serve."""
    if access_log:
        from referee import log_config

        log_config.configure(_log_level, access_log=True)
    if server == "gunicorn" and not gunicorn_available():
        raise click.UsageError("--server gunicorn needs gunicorn, which runs on POSIX only")
    folder = str(resolve_instance_path(instance_path))
    if server == "gevent" and not _gevent_patched():
        args = ["serve", "--server", "gevent", "--host", host, "--port", str(port), "--instance-path", folder]
        if access_log:
            args.append("--access-log")
        for flag, value in (("--database-url", database_url), ("--redis-url", redis_url)):
            if value:
                args += [flag, value]
        _reexec_under_gevent(args)
    limits = None
    if server == "gevent":
        from referee.realtime import server as gevent_server
        from referee.realtime import threads as blocking_calls

        blocking_calls.prepare()  # before the app makes its engine
    new = not Path(folder).exists()
    app = _make_app(
        folder,
        database_url,
        redis_url,
        async_mode="gevent" if server == "gevent" else "threading",
        must_exist=False,
    )
    if server == "gevent":
        try:
            limits = gevent_server.Limits.from_config(app.config)
        except ValueError as exc:
            raise click.UsageError(str(exc)) from None
    queue = app.config.get("REDIS_URL")
    if queue:
        _check_queue(str(queue))
    # The port first: a server already running keeps its link (a new one would revoke it).
    listener = listen(host, port)
    # A mistyped --instance-path is a new, empty instance: say so, where the referee looks.
    click.echo(f"  Instance folder: {app.instance_path}" + ("  (new: no games yet)" if new else ""))
    shown = _issue_link(app, host, port)
    print_link(shown)
    print_addresses(host, port, shown)
    if limits is not None:
        run_gevent(app, listener, limits, access_log=access_log)
    elif server == "gunicorn":
        run_gunicorn(app, listener, threads, access_log=access_log)
    else:
        listener.close()  # Werkzeug binds its own: the port was free a moment ago
        run_werkzeug(app, host, port)


def _check_queue(url: str) -> None:
    """Refuse to start on a message queue that cannot be reached: every push to another process would be lost."""
    try:
        import redis
    except ModuleNotFoundError:
        raise click.ClickException(
            "redis is not installed: pip install 'referee[redis]' (or redis) into this environment"
        ) from None
    try:
        client = redis.Redis.from_url(url, socket_connect_timeout=5, socket_timeout=5)
        try:
            client.ping()
        finally:
            client.close()
    except (ValueError, redis.RedisError) as exc:
        where = _safe_url(url, Path())
        raise click.ClickException(f"cannot reach the message queue {where}: {_first_line(exc)}") from None


def _gevent_patched() -> bool:
    """Tell whether this process's standard library is gevent's (referee/cli/serve_gevent.py ran first)."""
    monkey = sys.modules.get("gevent.monkey")
    return monkey is not None and bool(monkey.is_module_patched("socket"))


def _reexec_under_gevent(args: list[str]) -> NoReturn:
    """Run `referee <args>` again through referee/cli/serve_gevent.py, which patches before any import.

    `-P`: `-m` would put the working folder first on the path, so that, run from the project
    folder, the server imported the source tree (and kept its data in its `instance/`) while
    every other command used the installed package. The child imports what this process runs.
    """
    env = dict(os.environ, **{SERVE_ARGS_VARIABLE: json.dumps(args), "REFEREE_LOG_LEVEL": _log_level})
    root = str(Path(__file__).resolve().parents[2])  # the folder this `referee` package was imported from
    if not any(_same_folder(entry, root) for entry in sys.path[1:]):
        env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH", "")) if p)
    command = [sys.executable, "-P", "-m", "referee.cli.serve_gevent"]
    sys.stdout.flush()
    sys.stderr.flush()
    if os.name == "posix":
        os.execve(sys.executable, command, env)  # the same process id: supervisors and tests keep it
    sys.exit(subprocess.call(command, env=env))


def _same_folder(entry: str, folder: str) -> bool:
    try:
        return bool(entry) and os.path.samefile(entry, folder)
    except OSError:
        return False


@main.command()
@click.option("--host", envvar="REFEREE_HOST", default="0.0.0.0", show_default=True)
@click.option("--port", envvar="REFEREE_PORT", default=5000, show_default=True, type=PORT)
@_database_option
@_instance_option
def link(host: str, port: int, database_url: str | None, instance_path: str | None) -> None:
    """Print a fresh referee link and QR code without starting the server."""
    app = _make_app(instance_path, database_url, None)
    print_link(_issue_link(app, host, port))


@main.command("games")
@click.option("--host", envvar="REFEREE_HOST", default="0.0.0.0", show_default=True)
@click.option("--port", envvar="REFEREE_PORT", default=5000, show_default=True, type=PORT)
@_database_option
@_instance_option
def games(host: str, port: int, database_url: str | None, instance_path: str | None) -> None:
    """List the games, running first, with where each stands and its dashboard's link."""
    from referee.web.home import games_list

    app = _make_app(instance_path, database_url, None)
    base = referee_link(host, port, "").split("/?", 1)[0]
    # The command line speaks English: the rows too, whatever the home language of the pages.
    with app.test_request_context("/", base_url=base, headers={"Accept-Language": "en"}):
        rows = games_list()
    if not rows:
        click.echo("No games yet: `referee link` opens the referee's page, where a new game starts.")
        return
    for row in rows:
        click.echo(f"{row['title']}  ·  {row['state']}\n    {base}{row['url']}")
    click.echo("(a dashboard opens in the referee's browser: the one that opened the `referee link`)")


@main.group()
def tokens() -> None:
    """List and revoke referee access (a lost referee phone or laptop)."""


def _when(stamp: float | None) -> str:
    import datetime as _dt

    return _dt.datetime.fromtimestamp(stamp).strftime("%Y-%m-%d %H:%M") if stamp else "never"


@tokens.command("list")
@_database_option
@_instance_option
@click.option(
    "--all", "show_all", is_flag=True, help="Also list per-game referee and projector tokens, and revoked ones."
)
def tokens_list(database_url: str | None, instance_path: str | None, show_all: bool) -> None:
    """List the referee tokens (never the tokens themselves): id, created, last used, label."""
    from referee.web.access import TokenKind, list_tokens
    from referee.web.extensions import engine_of

    app = _make_app(instance_path, database_url, None)
    kinds = (TokenKind.REFEREE, TokenKind.GAME_REFEREE, TokenKind.PROJECTOR) if show_all else (TokenKind.REFEREE,)
    rows = list_tokens(engine_of(app), kinds=kinds, revoked=show_all)
    if not rows:
        click.echo("No referee tokens.")
        return
    click.echo(f"{'id':>5}  {'kind':<12} {'game':<12} {'created':<16}  {'last used':<16}  label")
    for r in rows:
        state = f"  (revoked {_when(r.revoked_at)})" if r.revoked_at else ""
        click.echo(
            f"{r.id:>5}  {r.kind:<12} {(r.game_id or '-'):<12} "
            f"{_when(r.created_at):<16}  {_when(r.last_seen_at):<16}  {r.label}{state}"
        )


@tokens.command("revoke")
@_database_option
@_instance_option
@click.argument("token_ids", nargs=-1, type=int)
@click.option("--all-referee", is_flag=True, help="Revoke every server referee token (then run `referee link`).")
def tokens_revoke(
    database_url: str | None, instance_path: str | None, token_ids: tuple[int, ...], all_referee: bool
) -> None:
    """Revoke referee tokens by id (see `referee tokens list`), or all of them."""
    from referee.web.access import TokenKind, list_tokens, revoke_token
    from referee.web.extensions import engine_of

    if not token_ids and not all_referee:
        raise click.UsageError("name the token ids to revoke (see `referee tokens list`), or pass --all-referee")
    app = _make_app(instance_path, database_url, None)
    engine = engine_of(app)
    referee_kinds = (TokenKind.REFEREE, TokenKind.GAME_REFEREE, TokenKind.PROJECTOR)
    known = {r.id for r in list_tokens(engine, kinds=referee_kinds, revoked=True)}
    ids = list(token_ids)
    if all_referee:
        ids += [r.id for r in list_tokens(engine, kinds=(TokenKind.REFEREE,))]
    unknown = [i for i in ids if i not in known]
    if unknown:
        raise click.BadParameter(
            f"no referee token with id {', '.join(map(str, unknown))}; team phones are revoked on the dashboard",
            param_hint="TOKEN_IDS",
        )
    done = sum(revoke_token(engine, i) for i in dict.fromkeys(ids))
    click.echo(f"Revoked {done} token(s). Browsers holding them lose referee access at their next request.")
    if all_referee:
        click.echo("Run `referee link` (or restart `referee serve`) for a new referee link.")
