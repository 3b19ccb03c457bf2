-- rankwise's fair-exposure family (rankwise/primitives/fairness.py): an aggregate macro over the ranked rows
-- (rnk the rank) carrying, on each row within the cutoff, fjsd: the Jensen-Shannon divergence (natural log)
-- between the query's target over its groups and the groups' shares of the discounted exposure of the rows
-- ranked <= it (each row d_i gives w_g(d_i) / log2(max(i, 2)) to each group g; NULL while no such row has a
-- weight in the target's groups), and fjsd0: the divergence of the uniform distribution over those groups
-- from the target (the same on every row of the query). Both NULL for a query without a target.

-- 1 - fjsd at the deepest rank <= k (TREC Fair Ranking's AWRF); without a known group there, 1 - fjsd0
-- ('trec2021': the uniform distribution) or NULL ('trec2022').
CREATE OR REPLACE TEMP MACRO rw_awrf(rnk, fjsd, fjsd0, k, definition) AS
    (1.0 - coalesce(max_by(fjsd, rnk) FILTER (WHERE rw_within(rnk, k)),
                    CASE WHEN definition = 'trec2021' THEN max(fjsd0) END))::DOUBLE;
