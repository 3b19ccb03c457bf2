-- rankwise's per-query AUC family and CatBoost's PFound (rankwise/primitives/auc.py): aggregate
-- macros over ranked rows (rel the relevance, rnk the rank), their row values and running steps.

-- The mean rank <= k of the row's tie group (the query's rows of equal score): its midrank in the
-- ranking cut at k (NULL beyond k); a row value (a window).
CREATE OR REPLACE TEMP MACRO rw_tie_rank(rnk, qid, score, k) AS
    avg(CASE WHEN rw_within(rnk, k) THEN rnk::DOUBLE ELSE NULL END) OVER (PARTITION BY qid, score);

-- ROC AUC's rank sum: over relevant rows at rank <= k, their tie group's mean rank (trank).
CREATE OR REPLACE TEMP MACRO rw_auc_rank_sum(rel, rnk, trank, t, k) AS
    coalesce(sum(CASE WHEN rw_is_rel(rel, t) AND rw_within(rnk, k) THEN trank ELSE 0.0 END), 0.0)::DOUBLE;

-- rectools' partial AUC sum: over relevant rows with n = rnk - cumrel < k non-relevant rows above
-- (cumrel from rw_cum_rel), k - n; with top, only the first k relevant rows (cumrel <= k).
CREATE OR REPLACE TEMP MACRO rw_partial_auc_sum(rel, rnk, cumrel, t, k, top) AS
    coalesce(sum(CASE WHEN rw_is_rel(rel, t) AND rnk::DOUBLE - cumrel::DOUBLE < k AND (NOT top OR cumrel <= k)
                      THEN k - (rnk::DOUBLE - cumrel::DOUBLE) ELSE 0.0 END), 0.0)::DOUBLE;

-- PFound (CatBoost): the label l = max(relevance, 0), unjudged 0, not clipped above 1; the
-- per-row steps of its running sums: ln|1 - l| (0 where l = 1), l = 1, l > 1.
CREATE OR REPLACE TEMP MACRO rw_label(rel) AS greatest(coalesce(rel::DOUBLE, 0.0), 0.0);
CREATE OR REPLACE TEMP MACRO rw_look_log_step(rel) AS
    CASE WHEN rw_label(rel) = 1.0 THEN 0.0 ELSE ln(abs(1.0 - rw_label(rel))) END;
CREATE OR REPLACE TEMP MACRO rw_look_stop_step(rel) AS CASE WHEN rw_label(rel) = 1.0 THEN 1 ELSE 0 END;
CREATE OR REPLACE TEMP MACRO rw_look_flip_step(rel) AS CASE WHEN rw_label(rel) > 1.0 THEN 1 ELSE 0 END;
-- Σ_{rnk <= k} l · decay^(rnk - 1) · Π_{earlier} (1 - l), the product 0 once an earlier label is 1,
-- else exp(cumlog) with the sign of the earlier labels above 1 (the running sums are inclusive:
-- the row's own step is taken back out).
CREATE OR REPLACE TEMP MACRO rw_pfound_sum(rel, rnk, cumlog, cumstop, cumflip, k, decay) AS
    coalesce(sum(CASE WHEN rw_within(rnk, k) AND cumstop - rw_look_stop_step(rel) = 0
        THEN rw_label(rel) * pow(decay, rnk - 1.0) * exp(cumlog - rw_look_log_step(rel))
             * (CASE WHEN (cumflip - rw_look_flip_step(rel)) % 2 = 1 THEN -1.0 ELSE 1.0 END)
        ELSE 0.0 END), 0.0)::DOUBLE;

-- CatBoost's QueryAUC (type=Ranking), its pairs counted over the labels' binary digits. The mean
-- ascending rank of the score among the rows at rank <= k of the same floor(label / 2^level)
-- (NULL beyond k): rank() is 1 + the rows scoring lower, the tie's own count adds (count - 1) / 2.
CREATE OR REPLACE TEMP MACRO rw_label_midrank(rel, rnk, qid, score, k, level) AS
    CASE WHEN rw_within(rnk, k) THEN
        (rank() OVER (PARTITION BY qid, floor(rw_label(rel) / pow(2.0, level)), rw_within(rnk, k) ORDER BY score)
         + (count(*) OVER (PARTITION BY qid, floor(rw_label(rel) / pow(2.0, level)), rw_within(rnk, k), score) - 1) / 2.0)::DOUBLE
    ELSE NULL END;
-- The pairs of rows at rank <= k with different labels: (n^2 + n) / 2 - sum of r0 (the midranks
-- among the rows of the same label, c(c + 1) / 2 for a label's c rows).
CREATE OR REPLACE TEMP MACRO rw_label_pairs(rnk, r0, k) AS
    ((count(*) FILTER (WHERE rw_within(rnk, k)))::DOUBLE * ((count(*) FILTER (WHERE rw_within(rnk, k)))::DOUBLE + 1.0) / 2.0
     - coalesce(sum(r0), 0.0))::DOUBLE;
-- Those ordered right (a score tie one half): the sum over rows and bits b < 5 of bit_b(label)
-- * (r_{b+1} - r_b); a label that is not an integer 0..31 is an error.
CREATE OR REPLACE TEMP MACRO rw_label_bit_part(rel, lo, hi, b) AS
    (floor(rw_label(rel) / pow(2.0, b)) % 2) * coalesce(hi - lo, 0.0);
CREATE OR REPLACE TEMP MACRO rw_label_pairs_ordered(rel, rnk, r0, r1, r2, r3, r4, r5, k) AS
    CASE WHEN max(CASE WHEN rw_within(rnk, k) AND (rw_label(rel) <> floor(rw_label(rel)) OR rw_label(rel) >= 32.0)
                       THEN 1 ELSE 0 END) = 1
         THEN error('rankwise: QueryAUC reads each document''s relevance as an integer label from 0 to 31 (unjudged and '
                    || 'negative: 0), got ' || CAST(max(CASE WHEN rw_within(rnk, k) AND (rw_label(rel) <> floor(rw_label(rel))
                                                         OR rw_label(rel) >= 32.0) THEN rw_label(rel) END) AS VARCHAR))
         ELSE coalesce(sum(CASE WHEN rw_within(rnk, k)
                                THEN rw_label_bit_part(rel, r0, r1, 0) + rw_label_bit_part(rel, r1, r2, 1)
                                     + rw_label_bit_part(rel, r2, r3, 2) + rw_label_bit_part(rel, r3, r4, 3)
                                     + rw_label_bit_part(rel, r4, r5, 4)
                                ELSE 0.0 END), 0.0) END::DOUBLE;
