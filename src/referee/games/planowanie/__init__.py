"""Planowanie (ITPW): the trick-taking card game, its GTP-style protocol and bots."""
