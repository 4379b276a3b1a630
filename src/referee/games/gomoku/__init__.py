"""Gomoku and its variants (freestyle, exact five, renju, caro) over the Gomocup protocol."""
