"""`referee serve` under gevent: the standard library is patched here, before anything imports it.

`referee serve` (referee.cli) re-executes itself as `python -m referee.cli.serve_gevent`: by the time
a click command runs, threading, socket and ssl have long been imported, and patching them then
leaves locks and sockets made before the patch blocking the whole process. The arguments come in
the environment (`_REFEREE_SERVE_ARGS`, JSON), not on the command line, where `ps` would show a
database URL with its password.
"""

from gevent import config, monkey  # type: ignore[import-untyped]

# A greenlet keeps no record of who spawned it and from where: only gevent's debugging reads it,
# and it was eleven objects a spawn (ten of them frames) for the cycle collector to walk. Every
# socket event spawns a greenlet, and every socket keeps one waiting 25 s for its next ping.
config.track_greenlet_tree = False
monkey.patch_all()

import json  # noqa: E402
import os  # noqa: E402

from referee.cli import SERVE_ARGS_VARIABLE, main  # noqa: E402

if __name__ == "__main__":
    raw = os.environ.pop(SERVE_ARGS_VARIABLE, None)
    main(args=json.loads(raw) if raw else None)
