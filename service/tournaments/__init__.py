"""Tournaments: games whose luck is fixed up front, run round after round."""
