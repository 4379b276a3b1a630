"""Shared test set-up: this folder is on ``sys.path``, so helpers such as ``proctags``
can be imported by the tests of every subfolder."""
