"""The Game of Hidden Rules (GOHR): rule sets, boards and the captive game server."""
