-- rankwise's popularity family (rankwise/primitives/popularity.py): aggregate macros over the
-- ranked rows (rnk the rank, rel the relevance) carrying the values of the training interactions:
-- iusers and irows (the row's item's distinct training users and rows; 0 for an item never in
-- training), seen (the query's user has the item among its training rows), and the training's
-- totals nusers (distinct users), nrows (rows), npairs (distinct (user, item) pairs) and minusers
-- (the fewest distinct users of a training item). Each sum runs over the ranks <= k (k NULL: all).

-- The discount of a rank: 1 / log2(rnk + 1).
CREATE OR REPLACE TEMP MACRO rw_rank_discount(rnk) AS 1.0 / log2(rnk::DOUBLE + 1.0);

-- Σ_{rnk <= k} -log2(max(iusers, 1) / nusers) (rectools' MeanInvUserFreq).
CREATE OR REPLACE TEMP MACRO rw_inv_user_freq_sum(rnk, iusers, nusers, k) AS
    coalesce(sum(CASE WHEN rw_within(rnk, k) THEN -log2(greatest(iusers, 1.0) / nusers) ELSE 0.0 END), 0.0)::DOUBLE;

-- Σ_{rnk <= k} the item's training rows ('interactions') or distinct training users ('users').
CREATE OR REPLACE TEMP MACRO rw_popularity_sum(rnk, irows, iusers, k, popularity) AS
    coalesce(sum(CASE WHEN rw_within(rnk, k)
                      THEN (CASE WHEN popularity = 'interactions' THEN irows ELSE iusers END)::DOUBLE
                      ELSE 0.0 END), 0.0)::DOUBLE;

-- Σ_{rnk <= k} [the user has no training row of the item].
CREATE OR REPLACE TEMP MACRO rw_unseen_sum(rnk, seen, k) AS
    coalesce(sum(CASE WHEN rw_within(rnk, k) AND NOT seen THEN 1.0 ELSE 0.0 END), 0.0)::DOUBLE;

-- Σ_{rnk <= k} 1 / log2(rnk + 1).
CREATE OR REPLACE TEMP MACRO rw_discount_sum(rnk, k) AS
    coalesce(sum(CASE WHEN rw_within(rnk, k) THEN rw_rank_discount(rnk) ELSE 0.0 END), 0.0)::DOUBLE;

-- Elliot's EPC numerator: Σ_{rnk <= k, relevant} (1 - iusers / nusers) / log2(rnk + 1).
CREATE OR REPLACE TEMP MACRO rw_epc_sum(rel, rnk, iusers, nusers, t, k) AS
    coalesce(sum(CASE WHEN rw_within(rnk, k) AND rw_is_rel(rel, t)
                      THEN (1.0 - iusers::DOUBLE / nusers) * rw_rank_discount(rnk) ELSE 0.0 END), 0.0)::DOUBLE;

-- Elliot's EFD numerator: Σ_{rnk <= k, relevant} -log2(max(iusers, minusers) / npairs) / log2(rnk + 1).
CREATE OR REPLACE TEMP MACRO rw_efd_sum(rel, rnk, iusers, npairs, minusers, t, k) AS
    coalesce(sum(CASE WHEN rw_within(rnk, k) AND rw_is_rel(rel, t)
                      THEN -log2(greatest(iusers, minusers)::DOUBLE / npairs) * rw_rank_discount(rnk)
                      ELSE 0.0 END), 0.0)::DOUBLE;

-- A total of the training interactions (the same on every row; NULL over no row).
CREATE OR REPLACE TEMP MACRO rw_train_total(nusers, nrows, npairs, total) AS
    (CASE WHEN total = 'users' THEN max(nusers) WHEN total = 'rows' THEN max(nrows) ELSE max(npairs) END)::DOUBLE;
