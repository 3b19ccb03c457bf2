-- rankwise's serendipity family (rankwise/primitives/serendipity.py): an aggregate macro over the ranked rows
-- (rnk the rank, rel the relevance) carrying idense, the row's item's dense popularity rank by training rows
-- (1 for the most interacted items, 0 for an item never in training), and ncatalog, the catalog's size.

-- rectools' Serendipity numerator: Σ_{rnk <= k, relevant} max((n + 1 - rnk) / n - pu, 0), pu = (n + 1 - idense) / n
-- (0 for an item never in training), n = ncatalog.
CREATE OR REPLACE TEMP MACRO rw_serendipity_sum(rel, rnk, idense, ncatalog, t, k) AS
    coalesce(sum(CASE WHEN rw_within(rnk, k) AND rw_is_rel(rel, t)
                      THEN greatest((ncatalog + 1.0 - rnk) / ncatalog
                                    - CASE WHEN idense > 0 THEN (ncatalog + 1.0 - idense) / ncatalog ELSE 0.0 END,
                                    0.0)
                      ELSE 0.0 END), 0.0)::DOUBLE;
