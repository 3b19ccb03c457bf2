-- rankwise's feature-diversity family (rankwise/primitives/feature_diversity.py): an aggregate macro over the
-- ranked rows (rnk the rank) carrying, on each row within the cutoff, the sum of the distances between its
-- item and each item ranked above it, from the item features (dcosine: 1 - cosine similarity, 1 when a vector
-- is all zeros; dhamming: the count of the features that differ; djaccard: 1 - |A ∩ B| / |A ∪ B| of the
-- nonzero features, 0 when both are empty). Summed over the ranks <= k: the sum over the top k's pairs.

-- Σ_{rnk <= k} the row's summed distance ('cosine', 'hamming' or 'jaccard') to the items ranked above it.
CREATE OR REPLACE TEMP MACRO rw_pair_distance_sum(rnk, dcosine, dhamming, djaccard, k, distance) AS
    coalesce(sum(CASE WHEN rw_within(rnk, k)
                      THEN (CASE WHEN distance = 'cosine' THEN dcosine WHEN distance = 'hamming' THEN dhamming
                                 ELSE djaccard END)::DOUBLE
                      ELSE 0.0 END), 0.0)::DOUBLE;
