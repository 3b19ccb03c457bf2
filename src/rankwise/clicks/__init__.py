"""Evaluation from users' clicks instead of judgments: interleaving experiments
(:mod:`rankwise.clicks.interleaving` generates the interleaved lists,
:mod:`rankwise.clicks.credit` analyses a click log of them) and counterfactual
(inverse-propensity) estimates of a new ranking's metrics from a logged ranking's clicks
(:mod:`rankwise.clicks.counterfactual`) with the propensities they need
(:mod:`rankwise.clicks.propensities`); the click log read by :mod:`rankwise.clicks.log`."""
