"""Who hears what, and when: the sockets of this process, the pushes of every change, the round clock.

- `sockets.py`: each socket's room (a game's role in a language), who acts on it, its phone, token
  and rate; revoked ones cut off.
- `views.py`: after a change, each room gets what changed in its view (`push/changes.py`).
- `changes.py`: a change set from one view to the next, and how a page applies it (as
  `static/js/lib/changes.js` does).
- `senders.py`: the phone behind each event of the referee's log, noted as pushes go, read once.
- `clock.py`: the round clock (deadlines, revocations, idle games) and views resent after an outage.

The Socket.IO events that feed them are `web/live.py`'s.
"""
