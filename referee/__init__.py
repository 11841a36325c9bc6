"""Referee and scorekeeping for live team games."""

__version__ = "0.1.0"
