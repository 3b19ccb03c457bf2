-- rankwise's popularity family (rankwise/primitives/popularity.py): aggregate macros over the
-- ranked rows (rnk the rank, rel the relevance) carrying the values of the training interactions:
-- iusers and irows (the row's item's distinct training users and rows; 0 for an item never in
-- training), ibefore (the distinct users of the training items more popular than it, ties by item id), iasc
-- (its place among the training items by rows ascending, ties by item id), iqusers and iqrows (its popularity
-- quantile by users and by rows), nitems (the training items), seen (the query's user has the item among its training rows), and the training's
-- totals nusers (distinct users), nrows (rows), npairs (distinct (user, item) pairs) and minusers
-- (the fewest distinct users of a training item). Each sum runs over the ranks <= k (k NULL: all).

-- The discount of a rank: 1 / log2(rnk + 1).
CREATE OR REPLACE TEMP MACRO rw_rank_discount(rnk) AS 1.0 / log2(rnk::DOUBLE + 1.0);

-- Σ_{rnk <= k} -log2(max(iusers, 1) / nusers) (rectools' MeanInvUserFreq).
CREATE OR REPLACE TEMP MACRO rw_inv_user_freq_sum(rnk, iusers, nusers, k) AS
    coalesce(sum(CASE WHEN rw_within(rnk, k) THEN -log2(greatest(iusers, 1.0) / nusers) ELSE 0.0 END), 0.0)::DOUBLE;

-- Σ_{rnk <= k} (1 for an item never in training, else log2(nusers / iusers) / log2(nusers)) (RePlay's
-- Surprisal); NULL when nusers = 1 and a training item is listed within k (RePlay's 0 / 0).
CREATE OR REPLACE TEMP MACRO rw_surprisal_sum(rnk, iusers, nusers, k) AS
    CASE WHEN count(*) FILTER (WHERE rw_within(rnk, k) AND iusers > 0 AND nusers = 1) > 0 THEN NULL
         ELSE coalesce(sum(CASE WHEN NOT rw_within(rnk, k) THEN 0.0 WHEN iusers = 0 THEN 1.0
                                WHEN nusers = 1 THEN 0.0 ELSE log2(nusers / iusers) / log2(nusers) END), 0.0)
    END::DOUBLE;

-- Σ_{rnk <= k} the item's training rows ('interactions') or distinct training users ('users').
CREATE OR REPLACE TEMP MACRO rw_popularity_sum(rnk, irows, iusers, k, popularity) AS
    coalesce(sum(CASE WHEN rw_within(rnk, k)
                      THEN (CASE WHEN popularity = 'interactions' THEN irows ELSE iusers END)::DOUBLE
                      ELSE 0.0 END), 0.0)::DOUBLE;

-- Σ_{rnk <= k} [the user has no training row of the item].
CREATE OR REPLACE TEMP MACRO rw_unseen_sum(rnk, seen, k) AS
    coalesce(sum(CASE WHEN rw_within(rnk, k) AND NOT seen THEN 1.0 ELSE 0.0 END), 0.0)::DOUBLE;

-- Σ_{rnk <= k} [the item is in the long tail: a training item whose more popular items' users (ibefore) reach
-- head of the training's (user, item) pairs; Elliot's 80% rule].
CREATE OR REPLACE TEMP MACRO rw_long_tail_sum(rnk, iusers, ibefore, npairs, k, head) AS
    coalesce(sum(CASE WHEN rw_within(rnk, k) AND iusers > 0 AND ibefore >= head * npairs THEN 1.0 ELSE 0.0 END), 0.0)::DOUBLE;

-- Σ_{rnk <= k} [the item is in the long tail the user gives: fgroups, its groups in groups= (weight > 0, as text),
-- hold tail; NULL fgroups: an item groups= does not hold, in neither].
CREATE OR REPLACE TEMP MACRO rw_group_tail_sum(rnk, fgroups, k, tail) AS
    coalesce(sum(CASE WHEN rw_within(rnk, k) AND coalesce(array_contains(fgroups, tail), false) THEN 1.0 ELSE 0.0 END),
             0.0)::DOUBLE;

-- Σ_{rnk <= k} [the item is in RecBole's long tail: tail_ratio <= 1, the first max(floor(nitems * tail_ratio), 1)
-- training items by rows ascending, ties by item id (iasc); above 1, the training items with at most tail_ratio rows].
CREATE OR REPLACE TEMP MACRO rw_tail_ratio_sum(rnk, irows, iasc, nitems, k, tail_ratio) AS
    coalesce(sum(CASE WHEN rw_within(rnk, k) AND irows > 0
                       AND (CASE WHEN tail_ratio > 1 THEN irows <= tail_ratio
                                 ELSE iasc <= greatest(floor(nitems * tail_ratio), 1.0) END)
                      THEN 1.0 ELSE 0.0 END), 0.0)::DOUBLE;

-- Σ_{rnk <= k} the item's popularity quantile (iqusers by distinct users, iqrows by rows: its average ascending rank
-- among the training items over their number; 0 for an item never in training; LensKit's MeanPopRank).
CREATE OR REPLACE TEMP MACRO rw_pop_quantile_sum(rnk, iqusers, iqrows, k, popularity) AS
    coalesce(sum(CASE WHEN rw_within(rnk, k)
                      THEN (CASE WHEN popularity = 'interactions' THEN iqrows ELSE iqusers END) ELSE 0.0 END), 0.0)::DOUBLE;

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

-- The training interactions' rows (the same on every row; NULL over no row).
CREATE OR REPLACE TEMP MACRO rw_train_rows(nrows) AS max(nrows)::DOUBLE;

-- The training interactions' data check (to_sql's train table): true, or an error naming the fault
-- (rankwise.inputs.checks.check_train's words): no row at all, NULL users, NULL items.
CREATE OR REPLACE TEMP MACRO rw_train_ok(n, null_users, null_items, user_name, item_name) AS
    CASE WHEN n = 0 THEN error('rankwise: the training interactions (train=) are empty: no (user, item) row')
         WHEN null_users > 0 THEN error('rankwise: the training interactions (train=) hold ' || CAST(null_users AS VARCHAR)
                                        || ' NULL value(s) in their user column ''' || user_name || '''')
         WHEN null_items > 0 THEN error('rankwise: the training interactions (train=) hold ' || CAST(null_items AS VARCHAR)
                                        || ' NULL value(s) in their item column ''' || item_name || '''')
         ELSE true END;
