-- rankwise's base-run family (rankwise/primitives/base_run.py): an aggregate macro over the ranked rows (rnk
-- the rank) carrying the base run's values: brank, the row's item's rank in its user's list of the base run,
-- ranked as the run is (NULL for an item that list does not hold), and blisted, whether the user has a list
-- in the base run.

-- Σ_{rnk <= k} [brank <= k]: the top k's items the user's base list holds in its top k; k when the user has
-- no list in the base run (RePlay's Unexpectedness then 0).
CREATE OR REPLACE TEMP MACRO rw_base_overlap_sum(rnk, brank, blisted, k) AS
    CASE WHEN bool_or(blisted)
         THEN coalesce(sum(CASE WHEN rw_within(rnk, k) AND brank <= k THEN 1.0 ELSE 0.0 END), 0.0)
         ELSE k END::DOUBLE;
