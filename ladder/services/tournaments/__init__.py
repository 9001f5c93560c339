"""Tournaments: round robins, version comparisons and the continuous ladder."""
