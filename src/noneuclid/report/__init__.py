"""Aggregate run folders into tables and figures (plotting never trains)."""
