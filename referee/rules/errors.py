"""Precise error classes of the rules core."""

from __future__ import annotations

from collections.abc import Callable, Sequence


class RulesError(Exception):
    """Base class of every refusal the rules core gives."""

    code = "refused"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def to_dict(self) -> dict[str, str]:
        """Return the refusal as a JSON-able dict."""
        return {"error": self.code, "message": self.message}


class MalformedAction(RulesError):
    """An action or value that cannot be parsed: wrong type, unknown field, bad square."""

    code = "malformed"


class IllegalAction(RulesError):
    """A well-formed action that the rules forbid now."""

    code = "illegal"


class NotYourTurn(IllegalAction):
    """An action by a role that may not take it."""

    code = "not_your_turn"


class GameOver(IllegalAction):
    """An action after the game has ended."""

    code = "game_over"


class StaleVersion(IllegalAction):
    """An action based on an older state version than the current one."""

    code = "stale"


class RulesetError(Exception):
    """A ruleset file that is broken or inconsistent; carries every problem found."""

    def __init__(self, problems: list[tuple[str, str, str]]) -> None:
        self.problems = problems
        super().__init__("\n".join(f"{f}: {k}: {r}" for f, k, r in problems))

    def lines(self) -> list[str]:
        """Return one `FILE: key: reason` line per problem."""
        return [f"{f}: {k}: {r}" for f, k, r in self.problems]


class Name(str):
    """A name with its translations (a ship kind's, a corridor's): English text, other languages on demand."""

    names: dict[str, str]

    def __new__(cls, text: str, names: dict[str, str] | None = None) -> Name:
        obj = super().__new__(cls, text)
        obj.names = dict(names or {})
        return obj

    def in_language(self, lang: str | None) -> str:
        """Return the name in a language, or the English one."""
        return self.names.get(lang or "", str(self))


class Msg(str):
    """A message for people: its English text, plus the template and values to translate it.

    Templates use {name} fields; values may be Names, Msgs or lists of Msgs, which are
    translated in turn. The rules core never translates: the web layer does, per request.
    """

    template: str
    params: dict[str, object]

    def __new__(cls, template: str, **params: object) -> Msg:
        text = template.format(**{k: _english(v) for k, v in params.items()}) if params else template
        obj = super().__new__(cls, text)
        obj.template = template
        obj.params = params
        return obj

    def localize(self, translate: Callable[[str], str], lang: str | None) -> str:
        """Return the message translated by `translate` (a gettext), with its values translated too."""
        values = {k: _local(v, translate, lang) for k, v in self.params.items()}
        try:
            return translate(self.template).format(**values)
        except (KeyError, IndexError, ValueError):
            # A broken translation must not hide the refusal: fall back to English.
            return self.template.format(**values)


def join_msgs(items: Sequence[str], sep: str = "; ") -> Msg:
    """Join several messages into one that still translates item by item."""
    return Msg("{items}", items=_Joined(sep, list(items)))


class _Joined(list[str]):
    def __init__(self, sep: str, items: list[str]) -> None:
        super().__init__(items)
        self.sep = sep

    def __str__(self) -> str:
        return self.sep.join(str(i) for i in self)


def message_to_data(value: object) -> object:
    """Return a message (a Msg, a Name, joined messages) as JSON-able data that keeps its translations."""
    if isinstance(value, Msg):
        return {"$msg": value.template, "params": {k: message_to_data(v) for k, v in value.params.items()}}
    if isinstance(value, Name):
        return {"$name": str(value), "names": dict(value.names)}
    if isinstance(value, _Joined):
        return {"$joined": value.sep, "items": [message_to_data(i) for i in value]}
    if isinstance(value, list):
        return [message_to_data(i) for i in value]
    return value


def message_from_data(data: object) -> object:
    """Rebuild a message from `message_to_data` output; other data passes unchanged."""
    if isinstance(data, dict):
        if "$msg" in data:
            params = data.get("params") or {}
            return Msg(str(data["$msg"]), **{str(k): message_from_data(v) for k, v in params.items()})
        if "$name" in data:
            return Name(str(data["$name"]), {str(k): str(v) for k, v in (data.get("names") or {}).items()})
        if "$joined" in data:
            return _Joined(str(data["$joined"]), [str(message_from_data(i)) for i in data.get("items") or []])
    if isinstance(data, list):
        return [message_from_data(i) for i in data]
    return data


def is_message_data(data: object) -> bool:
    """Tell whether data is a message as `message_to_data` writes it."""
    return isinstance(data, dict) and bool(data.keys() & {"$msg", "$name", "$joined"})


def _english(value: object) -> object:
    if isinstance(value, _Joined):
        return str(value)
    return value


def _local(value: object, translate: Callable[[str], str], lang: str | None) -> object:
    if isinstance(value, Msg):
        return value.localize(translate, lang)
    if isinstance(value, Name):
        return value.in_language(lang)
    if isinstance(value, _Joined):
        return value.sep.join(str(_local(i, translate, lang)) for i in value)
    if isinstance(value, str):
        # Game words ("upper", "bomber") are in the catalogue; names and squares pass unchanged.
        return translate(value) if value else value
    return value


def localize(message: str, translate: Callable[[str], str], lang: str | None) -> str:
    """Translate any message of the core: a Msg with its values, else the plain text as it is."""
    if isinstance(message, Msg):
        return message.localize(translate, lang)
    return translate(message) if message else message
