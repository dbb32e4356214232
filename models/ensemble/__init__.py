"""Seed 001's ensemble exploiter: opponent-model tree, policy networks, library (the evolution is in
``models.training``)."""
