"""What a metric is: its declarative shape (:mod:`~rankwise.metrics.spec`), the shape of a metric
family's home (:mod:`~rankwise.metrics.family`), one module per family holding its specs, recipes
and names in other tools' schemes (:mod:`~rankwise.metrics.families`), the registry of every
metric (:mod:`~rankwise.metrics.registry`), the metric string and its parser
(:mod:`~rankwise.metrics.metric`), every metric's formula over the primitives gathered
(:mod:`~rankwise.metrics.recipes`) and the documentation generated from them
(:mod:`~rankwise.metrics.docs`)."""
