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

-- The item features' data check (to_sql's features table): true, or an error naming the fault
-- (rankwise.inputs.features' words): no item at all, NULL items, an item given twice, empty vectors, vectors of
-- different lengths, NULL or NaN values, items the run lists without features.
CREATE OR REPLACE TEMP MACRO rw_features_ok(n, null_items, twice, empty, lengths, bad_values, unfeatured, item_name) AS
    CASE WHEN n = 0 THEN error('rankwise: the item features (features=) are empty: no item')
         WHEN null_items > 0 THEN error('rankwise: the item features (features=) hold ' || CAST(null_items AS VARCHAR)
                                        || ' NULL value(s) in their item column ''' || item_name || '''')
         WHEN twice > 0 THEN error('rankwise: the item features (features=) give ' || CAST(twice AS VARCHAR)
                                   || ' item(s) more than once; each item has one vector')
         WHEN empty > 0 THEN error('rankwise: the item features (features=) hold ' || CAST(empty AS VARCHAR)
                                   || ' empty or NULL vector(s)')
         WHEN lengths > 1 THEN error('rankwise: the item features (features=) must all have one length: they have '
                                     || CAST(lengths AS VARCHAR) || ' different lengths')
         WHEN bad_values > 0 THEN error('rankwise: the item features (features=) hold ' || CAST(bad_values AS VARCHAR)
                                        || ' NULL or NaN value(s); every value must be a number')
         WHEN unfeatured > 0 THEN error('rankwise: the run lists ' || CAST(unfeatured AS VARCHAR)
                                        || ' item(s) that have no features in the item features (features=)')
         ELSE true END;
