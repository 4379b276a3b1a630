"""Tournaments: schedules, concurrent runs, the results store, ratings and reports."""
