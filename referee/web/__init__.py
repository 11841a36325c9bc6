"""The Flask application factory."""

from __future__ import annotations

import logging
import os
import secrets
import stat
import tomllib
from collections.abc import Callable, Mapping, MutableMapping
from pathlib import Path
from typing import Any

from flask import Flask
from jinja2 import BaseLoader, Environment, Template, TemplateNotFound

from referee import offload
from referee.resources import resource_path

SECRET_KEY_FILE = "secret_key"
INSTANCE_CONFIG = "referee.toml"
TRANSLATIONS_DIR = Path(__file__).resolve().parent.parent / "translations"


def create_app(
    test_config: Mapping[str, Any] | None = None,
    *,
    instance_path: str | os.PathLike[str] | None = None,
    overrides: Mapping[str, Any] | None = None,
) -> Flask:
    """Create and configure the referee app.

    Config comes from the packaged config/referee.toml, then (unless `test_config` is given)
    the instance folder's referee.toml and REFEREE_* environment variables, then `overrides`
    (the CLI's options). The instance folder is `instance_path`, else $REFEREE_INSTANCE_PATH,
    else Flask's default.
    """
    if instance_path is None:
        instance_path = os.environ.get("REFEREE_INSTANCE_PATH") or None
    app = Flask(
        "referee",
        instance_path=str(Path(instance_path).resolve()) if instance_path else None,
        instance_relative_config=True,
        template_folder=str(resource_path("templates")),
        static_folder=str(resource_path("static")),
    )
    make_private_folder(Path(app.instance_path))

    app.config.from_file(str(resource_path("config") / "referee.toml"), load=tomllib.load, text=False)
    if test_config is None:
        app.config.from_file(INSTANCE_CONFIG, load=tomllib.load, silent=True, text=False)
        app.config.from_prefixed_env("REFEREE")
    else:
        app.config.from_mapping(test_config)
    if overrides:
        app.config.from_mapping({k: v for k, v in overrides.items() if v not in (None, "")})

    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = load_or_create_secret_key(Path(app.instance_path))
    if not app.config.get("DATABASE_URL"):
        app.config["DATABASE_URL"] = f"sqlite:///{Path(app.instance_path) / 'referee.sqlite3'}"
    app.config["BABEL_TRANSLATION_DIRECTORIES"] = str(TRANSLATIONS_DIR)

    from referee.web import access, errors, help, home, i18n, logs, precompress, security, socketio_app
    from referee.web.extensions import compress, db

    logs.install()  # before anything can log a request line with a token in it
    db.init_app(app)
    # Phones on a busy club Wi-Fi: every page, script and style goes out compressed.
    app.config.setdefault(
        "COMPRESS_MIMETYPES",
        [
            "text/html",
            "text/css",
            "text/javascript",
            "application/javascript",
            "application/json",
            "image/svg+xml",
            "text/csv",
        ],
    )
    # Brotli first: a fifth smaller than zstd 3 on our pages; quality 5 costs about a millisecond per page.
    app.config.setdefault("COMPRESS_ALGORITHM", ["br", "zstd", "gzip", "deflate"])
    app.config.setdefault("COMPRESS_BR_LEVEL", 5)
    compress.init_app(app)
    precompress.init_app(app)  # static files: compressed once at the strongest level
    i18n.init_app(app)
    security.init_app(app)
    access.init_app(app)
    errors.init_app(app)
    # The Socket.IO events first: Flask-SocketIO keeps a handler declared while no server exists
    # for every app, but gives one declared after an app's init_app to that app's server alone,
    # so a second app in one process (the tests make one each) would answer no event.
    from referee.web import live, modes
    from referee.web.api import openapi, routes

    socketio_app.init_app(app)
    app.register_blueprint(home.bp)
    app.register_blueprint(help.bp)
    app.jinja_env.globals["template_exists"] = _template_exists(app)
    app.jinja_env.loader = CompiledInAThread(app.jinja_env.loader or app.create_global_jinja_loader())
    app.register_blueprint(routes.bp)
    # Each mode's web side, in its folder of web/modes/: a mode with pages brings its own.
    for web_side in modes.web_sides():
        if hasattr(web_side, "init_app"):
            web_side.init_app(app)
    live.init_app(app)
    openapi.init_app(app)
    security.wrap_wsgi(app)  # last: around Socket.IO's middleware too
    return app


class CompiledInAThread(BaseLoader):
    """Flask's template loader, with each template compiled in a thread (referee.offload) at its first use.

    Jinja compiles a template the first time a page uses it: 5 to 80 ms each, on the one event
    loop, so the first referee page or score sheet of an evening held every screen while it
    compiled. Compiling them all before serving cost every start 0.6 s. Compiled ones stay in
    Jinja's cache (400 templates).
    """

    def __init__(self, inner: BaseLoader) -> None:
        self.inner = inner

    def get_source(self, environment: Environment, template: str) -> tuple[str, str | None, Callable[[], bool] | None]:
        """Find a template's source as Flask's loader does (the app's folder, then the blueprints')."""
        return self.inner.get_source(environment, template)

    def list_templates(self) -> list[str]:
        """List every template Flask's loader knows."""
        return self.inner.list_templates()

    def load(self, environment: Environment, name: str, globals: MutableMapping[str, Any] | None = None) -> Template:
        """Read and compile a template in a thread; the request waits for it, everyone else is served."""
        return offload.run(self.inner.load, environment, name, globals)


def make_private_folder(path: Path) -> None:
    """Create a folder only its owner may enter (0700), tightening one an older install left open.

    The instance folder holds the secret key and the database (both seas, every order in clear):
    with the usual umask 022 it would be 0755, readable by every local user.
    """
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    if os.name == "posix" and stat.S_IMODE(path.stat().st_mode) & 0o077:
        try:
            os.chmod(path, 0o700)
        except OSError as exc:  # not ours to change: say so rather than refuse to start
            logging.getLogger(__name__).warning("could not make %s private (0700): %s", path, exc)


def load_or_create_secret_key(instance: Path) -> str:
    """Return the secret key kept in `<instance>/secret_key`, creating it (mode 0600) on first run."""
    path = instance / SECRET_KEY_FILE
    if not path.exists():
        tmp = instance / f".{SECRET_KEY_FILE}.{secrets.token_hex(4)}"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            with os.fdopen(fd, "w", encoding="ascii") as f:
                f.write(secrets.token_hex(32) + "\n")
                f.flush()
                os.fsync(f.fileno())
            try:
                os.link(tmp, path)  # atomic: exactly one of several racing processes wins
            except FileExistsError:
                pass
        finally:
            tmp.unlink(missing_ok=True)
    if os.name == "posix" and stat.S_IMODE(path.stat().st_mode) & 0o077:
        os.chmod(path, 0o600)
    key = path.read_text(encoding="ascii").strip()
    if len(key) < 32:
        raise RuntimeError(f"{path} holds no usable secret key; delete it to make a new one")
    return key


def _template_exists(app: Flask) -> Any:
    """Return a Jinja global telling whether a template exists (error.html uses it for base.html)."""

    def exists(name: str) -> bool:
        try:
            app.jinja_env.get_template(name)
        except TemplateNotFound:
            return False
        return True

    return exists
