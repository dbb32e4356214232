"""Seed 001's ensemble exploiter: opponent-model tree, policy networks, evolution, library."""
