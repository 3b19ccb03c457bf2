"""The per-query primitives, each declared once: a typed frozen dataclass whose fields are its
parameters and whose class attributes are the facts an engine needs.

A metric's recipe (:mod:`rankwise.metrics.recipes`) is a tree of these. Each engine implements every
primitive once, under the primitive's :meth:`~Bound.binding` name (the class name in
snake_case): a Polars function in ``rankwise._polars.primitives`` and a SQL macro ``rw_<name>``
in ``sql/``, both with the same parameter names. An engine calls them through one generic
binder, passing by name:

- the row columns the primitive :attr:`~Bound.reads`: ``rel`` (the relevance; NULL when
  unjudged), ``rnk`` (the rank, 1 = top) and ``qid`` (the query, for windows);
- its :meth:`~Bound.inputs`: running sums down the ranking (:class:`Step`), per-row values
  (:class:`RowValue`), the rank in the ideal order (:class:`IdealRank`), the ideal prefix at
  the row's rank (:class:`IdealPrefix`), a value of the row's document in the run-ordered
  ideal (:class:`RunIdealValue`), or per-query values of the judgments (a
  :class:`Primitive` on the ``qrels`` side, joined per query);
- its fields, a :class:`Gain` field as the gain value of the row (``g``).

The diversity primitives (:class:`IntentPrimitive`) read (document, subtopic) pairs instead:
``rnk``, ``cov``, ``nsub`` and ``sub`` (see their block below).

``tests/house/test_primitives.py`` checks that for every declared class the Polars function and the
SQL macro exist and take the same parameters. Adding a primitive therefore touches three places:
its class in the module of its family (:mod:`~rankwise.primitives.trec`, :mod:`~rankwise.primitives.auc`, :mod:`~rankwise.primitives.cwl`,
:mod:`~rankwise.primitives.diversity`, :mod:`~rankwise.primitives.popularity`, :mod:`~rankwise.primitives.feature_diversity`, :mod:`~rankwise.primitives.base_run`, :mod:`~rankwise.primitives.serendipity`, :mod:`~rankwise.primitives.fairness`; the kinds in :mod:`~rankwise.primitives.core`, scalar
operations in :mod:`~rankwise.primitives.operations`), its Polars function, its SQL macro (see docs/ARCHITECTURE.md).

>>> ApSum(t=1.0, k=10).inputs()
{'cumrel': RelStep(t=1.0)}
>>> ApSum.binding(), ApSum.judged_rows, FirstRel.empty
('ap_sum', True, None)
"""

from __future__ import annotations

from rankwise.primitives.auc import *  # noqa: F403  (every declaration, as rankwise.primitives.<Name>)
from rankwise.primitives.base_run import *  # noqa: F403  (every declaration, as rankwise.primitives.<Name>)
from rankwise.primitives.categories import *  # noqa: F403  (every declaration, as rankwise.primitives.<Name>)
from rankwise.primitives.core import *  # noqa: F403  (every declaration, as rankwise.primitives.<Name>)
from rankwise.primitives.cwl import *  # noqa: F403  (every declaration, as rankwise.primitives.<Name>)
from rankwise.primitives.diversity import *  # noqa: F403  (every declaration, as rankwise.primitives.<Name>)
from rankwise.primitives.fairness import *  # noqa: F403  (every declaration, as rankwise.primitives.<Name>)
from rankwise.primitives.feature_diversity import *  # noqa: F403  (every declaration, as rankwise.primitives.<Name>)
from rankwise.primitives.operations import *  # noqa: F403  (every declaration, as rankwise.primitives.<Name>)
from rankwise.primitives.popularity import *  # noqa: F403  (every declaration, as rankwise.primitives.<Name>)
from rankwise.primitives.serendipity import *  # noqa: F403  (every declaration, as rankwise.primitives.<Name>)
from rankwise.primitives.sets import *  # noqa: F403  (every declaration, as rankwise.primitives.<Name>)
from rankwise.primitives.trec import *  # noqa: F403  (every declaration, as rankwise.primitives.<Name>)
