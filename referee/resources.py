"""Where the packaged data folders (templates, static, config) are."""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def resource_path(name: str) -> Path:
    """Return the packaged folder `referee/<name>` if it exists (wheel), else the repo's top-level `<name>`."""
    packaged = _PACKAGE / name
    if packaged.is_dir():
        return packaged
    return _PACKAGE.parent / name
