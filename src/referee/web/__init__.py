"""The game server on the web (``referee web``): accounts, sessions, the store of tables
and seats, the pages and the live tables, on Starlette and uvicorn (issue 38)."""
