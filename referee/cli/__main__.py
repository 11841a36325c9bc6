"""`python -m referee.cli`: the `referee` command."""

from referee.cli import main

main()
