"""The JSON API every mode shares, and what the HTTP routes and Socket.IO handlers both call.

- `routes.py`: the `api` blueprint: create a game, its view, an action, its event log, a sea draft.
- `acting.py`: a browser's role in a game, a role's view, and one action run through the play
  service with its JSON answer (the routes, the modes' pages and `web/live.py` all act here).
- `exports.py`: the downloads that grow with a game (its log as JSON and CSV), made off the loop.
- `openapi.py`: the OpenAPI document, put together from what every mode's web side declares.
"""
