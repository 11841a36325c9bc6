"""Logging is set up once by every `referee` command: one handler, one line a record, a level to choose."""

from __future__ import annotations

import io
import logging
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from referee import log_config
from referee.cli import main
from referee.web import create_app
from referee.web.extensions import engine_of


@pytest.fixture
def restore_logging() -> Iterator[None]:
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    try:
        yield
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)
        for name in (log_config.ACCESS, "werkzeug"):
            logging.getLogger(name).setLevel(logging.NOTSET)


def test_one_line_a_record_with_time_level_and_logger(restore_logging: None) -> None:
    out = io.StringIO()
    log_config.configure("warning", stream=out)
    log_config.configure("INFO", stream=out)  # again: the handler is replaced, not added
    logging.getLogger("referee.test").info("hello %s", "there")
    logging.getLogger("referee.test").debug("not shown")
    lines = out.getvalue().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].endswith(" INFO referee.test: hello there") and lines[0][:4].isdigit()


def test_the_access_log_is_off_unless_asked_for(restore_logging: None) -> None:
    out = io.StringIO()
    log_config.configure("INFO", stream=out)
    logging.getLogger(log_config.ACCESS).info("GET / 200")
    assert out.getvalue() == ""
    log_config.configure("INFO", access_log=True, stream=out)
    logging.getLogger(log_config.ACCESS).info("GET / 200")
    assert "gevent.pywsgi.access: GET / 200" in out.getvalue()


def test_the_app_gets_no_handler_of_its_own_that_writes_to_wsgi_errors(restore_logging: None, tmp_path: Path) -> None:
    """Flask's default handler writes to `wsgi.errors`, which under gevent is a logger: they went round."""
    log_config.configure("INFO", stream=io.StringIO())
    app = create_app({"TESTING": True, "SECRET_KEY": "x" * 32}, instance_path=tmp_path / "i")
    try:
        assert app.logger.handlers == []
        assert not log_config.SERVER_ERRORS.startswith(app.logger.name + ".")
    finally:
        engine_of(app).dispose()


@pytest.mark.parametrize("level", ["loud", ""])
def test_a_bad_log_level_is_one_clear_line_and_a_failure(level: str, restore_logging: None) -> None:
    result = CliRunner().invoke(main, ["--log-level", level, "games"])
    assert result.exit_code == 2
    assert "log level must be one of DEBUG, INFO, WARNING, ERROR" in result.output
    assert "Traceback" not in result.output


def test_the_log_level_comes_from_the_environment_too(restore_logging: None) -> None:
    result = CliRunner().invoke(main, ["rules", "--help"], env={"REFEREE_LOG_LEVEL": "debug"})
    assert result.exit_code == 0, result.output
    assert logging.getLogger().level == logging.DEBUG
