"""Evaluation from users' clicks instead of judgments: counterfactual (inverse-propensity)
estimates of a new ranking's metrics from a logged ranking's clicks
(:mod:`rankwise.clicks.counterfactual`; the click log read by :mod:`rankwise.clicks.log`)."""
