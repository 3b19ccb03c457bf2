"""The report of a comparison: :func:`rankwise.report` (:mod:`~rankwise.reporting.report`), its
HTML page (:mod:`~rankwise.reporting.page`, :mod:`~rankwise.reporting.assets`), what it reads
from the inputs again (:mod:`~rankwise.reporting.details`), where its numbers come from
(:mod:`~rankwise.reporting.provenance`), paper-ready tables (:mod:`~rankwise.reporting.tables`)
and figures (:mod:`~rankwise.reporting.plots`, ``rw.plots``)."""
