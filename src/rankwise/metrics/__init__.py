"""What a metric is: its declarative shape (:mod:`~rankwise.metrics.spec`), the registry of every
metric (:mod:`~rankwise.metrics.registry`), the metric string and its parser
(:mod:`~rankwise.metrics.metric`), each metric's formula over the primitives
(:mod:`~rankwise.metrics.recipes`) and the documentation generated from them
(:mod:`~rankwise.metrics.docs`)."""
