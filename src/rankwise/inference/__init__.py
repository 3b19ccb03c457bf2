"""Statistical inference about a run's metrics from judgments of unequal cost: many cheap ones
(a language model's) checked on a sample of dear ones (people's): prediction-powered inference
(:mod:`rankwise.inference.ppi`)."""
