"""Metric names in other tools' schemes, each scheme a module: trec_eval's
(:mod:`~rankwise.names.trec_eval`), ranx's (:mod:`~rankwise.names.ranx`), and the parser that
tries them after ir-measures' syntax (:mod:`~rankwise.names.parse`)."""
