-- rankwise's serendipity family (rankwise/primitives/serendipity.py): an aggregate macro over the ranked rows
-- (rnk the rank, rel the relevance) carrying idense, the row's item's dense popularity rank by training rows
-- (1 for the most interacted items, 0 for an item never in training), and ncatalog, the catalog's size.

-- rectools' Serendipity numerator: Σ_{rnk <= k, relevant} max((n + 1 - rnk) / n - pu, 0), pu = (n + 1 - idense) / n
-- (0 for an item never in training), n = ncatalog; every: every row relevant.
CREATE OR REPLACE TEMP MACRO rw_serendipity_sum(rel, rnk, idense, ncatalog, t, k, every) AS
    coalesce(sum(CASE WHEN rw_within(rnk, k) AND (every OR rw_is_rel(rel, t))
                      THEN greatest((ncatalog + 1.0 - rnk) / ncatalog
                                    - CASE WHEN idense > 0 THEN (ncatalog + 1.0 - idense) / ncatalog ELSE 0.0 END,
                                    0.0)
                      ELSE 0.0 END), 0.0)::DOUBLE;

-- recommenders' serendipity numerator: Σ_{rnk <= k} (1 - sim) * r, sim the row's item's mean similarity to its user's
-- training rows (hco: co-occurrence; hcos: cosine of the features), r = [rel >= t] (every: 1 on every row); NULL
-- for a user without training rows (hlen = 0: recommenders leaves it out) and over no row.
CREATE OR REPLACE TEMP MACRO rw_cooccurrence_serendipity_sum(rel, rnk, hlen, hco, t, k, every) AS
    CASE WHEN coalesce(max(hlen), 0) > 0
         THEN coalesce(sum(CASE WHEN rw_within(rnk, k) AND (every OR rw_is_rel(rel, t)) THEN 1.0 - hco ELSE 0.0 END), 0.0)
    END::DOUBLE;

CREATE OR REPLACE TEMP MACRO rw_cosine_serendipity_sum(rel, rnk, hlen, hcos, t, k, every) AS
    CASE WHEN coalesce(max(hlen), 0) > 0
         THEN coalesce(sum(CASE WHEN rw_within(rnk, k) AND (every OR rw_is_rel(rel, t)) THEN 1.0 - hcos ELSE 0.0 END), 0.0)
    END::DOUBLE;

-- Σ_{rnk <= k} pco: the co-occurrence similarity summed over the top k's unordered pairs (recommenders' user_diversity).
CREATE OR REPLACE TEMP MACRO rw_pair_cooccurrence_sum(rnk, pco, k) AS
    coalesce(sum(CASE WHEN rw_within(rnk, k) THEN pco ELSE 0.0 END), 0.0)::DOUBLE;
