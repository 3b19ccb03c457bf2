"""What users call to get numbers: :func:`rankwise.evaluate` and :func:`rankwise.summarize`
(:mod:`~rankwise.evaluation.evaluate`), :func:`rankwise.explain`, the list form of recommenders
(:mod:`~rankwise.evaluation.lists`), the ``.ir`` namespaces (:mod:`~rankwise.evaluation.namespace`),
the SQL of an evaluation (:mod:`~rankwise.evaluation.to_sql`) and Spark
(:mod:`~rankwise.evaluation.spark`, ``rw.spark``)."""
