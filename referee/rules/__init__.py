"""The pure rules core: standard library only, no web, no database, no clock reads.

Time always comes in as an argument (seconds since the epoch, as a float).
"""
