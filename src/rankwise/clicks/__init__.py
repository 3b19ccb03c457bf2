"""Evaluation from users' clicks instead of judgments: interleaving experiments
(:mod:`rankwise.clicks.interleaving` generates the interleaved lists,
:mod:`rankwise.clicks.credit` analyses a click log of them)."""
