"""Popularity parity (beyond accuracy): **set-level** metrics, one value per run (per ``by=``
segment), that ask whether the lists treat the popular and the unpopular items alike — Elliot's
PopRSP (statistical parity: is an item of the short head as likely to be recommended as one of the
long tail?) and PopREO (equal opportunity: as likely when it is relevant?), Zhu, Wang & Caverlee,
Measuring and mitigating item under-recommendation bias in personalized ranking systems, SIGIR 2020.

The short head and the long tail are the popularity family's (APLT's): the most popular training
items by distinct users up to ``head`` (80%) of the training's (user, item) pairs, and the other
training items; an item never in training is in neither. Each group's rate is a ratio of sums over
the users scored, and the value is the coefficient of variation of the two rates (their population
standard deviation over their mean): |P_head − P_tail| / (P_head + P_tail), 0 for parity."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from rankwise.metrics.family import Measured, MetricFamily, Params, Recipe
from rankwise.metrics.spec import MetricSpec, Param

if TYPE_CHECKING:
    from rankwise.primitives import Node

_GROUPS = (
    "the short head: the most popular training items by distinct users (ties by item id) up to the one whose users "
    "cross head of the training's (user, item) pairs; the long tail: the other training items"
)

HEAD = Param(
    "head", float, 0.8,
    "the short head's share of the training's (user, item) pairs, as APLT's (Elliot's 80% rule); the other training "
    "items are the long tail",
    minimum=0.0, exclusive_min=True, maximum=0.99,
    bounds="a share of the pairs above 0 (else no head) and at most 0.99: the long tail holds the items whose more "
    "popular items' users reach head of the pairs, so nearer 1 it empties (the least popular item's users would have "
    "to be below 1 − head of them) and its rate is 0/0",
)

SPECS: tuple[MetricSpec, ...] = (
    MetricSpec(
        name="PopRSP",
        aliases=(),
        params=(HEAD,),
        cutoff="optional",
        description="popularity-based ranking statistical parity: how unequal the chances of a short-head and a "
        "long-tail item to be listed within k are, 0 for parity (one value per run)",
        formula="PopRSP@k = |P_h − P_t| / (P_h + P_t), P_g = Σ_u |L_u@k ∩ g| / Σ_u |g − H_u| over the users scored "
        f"u (a user without a list among them with missing='zero'), H_u u's training items, g the group ({_GROUPS}); "
        "NULL when both rates are 0 or a group has no unseen item",
        citation="Elliot PopRSP (elliot/evaluation/metrics/bias/pop_rsp/pop_rsp.py: std/mean of the two rates); Zhu, "
        "Wang & Caverlee, Measuring and mitigating item under-recommendation bias in personalized ranking "
        "systems, SIGIR 2020",
        empty_value=None,
        aggregate="set",
        better="lower",
    ),
    MetricSpec(
        name="PopREO",
        aliases=(),
        params=(HEAD,),
        cutoff="optional",
        description="popularity-based ranking equal opportunity: how unequal the chances of a relevant short-head "
        "and a relevant long-tail item to be listed within k are, 0 for parity (one value per run)",
        formula="PopREO@k = |P_h − P_t| / (P_h + P_t), P_g = Σ_u |L_u@k ∩ R_u ∩ g| / Σ_u |(g ∩ R_u) − H_u| over the "
        f"users scored u, R_u u's relevant items (relevance ≥ rel), H_u its training items, g the group ({_GROUPS}); "
        "NULL when both rates are 0 or a group has no relevant unseen item",
        citation="Elliot PopREO (elliot/evaluation/metrics/bias/pop_reo/pop_reo.py); Zhu, Wang & Caverlee, SIGIR 2020",
        empty_value=None,
        aggregate="set",
        better="lower",
    ),
)


def _parity(m: Measured, p: Params, *, relevant: bool) -> Node:
    """|P_h − P_t| / (P_h + P_t) of the two groups' rates."""
    from rankwise.primitives import (
        Add,
        DivNull,
        Greatest,
        Mul,
        PopularityGroupExposure,
        PopularityGroupItems,
        Sub,
        UsersScored,
    )

    head = float(p["head"])
    rates = []
    for tail in (False, True):
        listed = PopularityGroupExposure(m.cutoff, head, tail, "listed", relevant)
        if relevant:  # the relevant judgments of the group's items the user has not seen
            unseen: Node = PopularityGroupExposure(None, head, tail, "relevant_unseen", False)
        else:  # the group's items the user has not seen: |g| − |g ∩ H_u| per user
            seen = PopularityGroupExposure(None, head, tail, "history", False)
            unseen = Sub(Mul(UsersScored(m.cutoff), PopularityGroupItems(None, head, tail)), seen)
        rates.append(DivNull(listed, unseen))
    h, t = rates
    return DivNull(Greatest(Sub(h, t), Sub(t, h)), Add(h, t))


def recipes() -> Mapping[str, Recipe]:
    """The family's formulas over the set-level primitives (:mod:`rankwise.primitives.sets`)."""
    return {
        "PopRSP": lambda m, p: _parity(m, p, relevant=False),
        "PopREO": lambda m, p: _parity(m, p, relevant=True),
    }


FAMILY = MetricFamily(
    name="popularity parity (one value per run)", specs=SPECS, recipes=recipes, reads=("train",),
    beyond_accuracy=True,
)
