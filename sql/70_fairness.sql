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

-- The document groups' data check (to_sql's groups table): true, or an error naming the fault (rankwise.inputs.groups'
-- words): no row, NULL documents or groups, a (document, group) pair given twice, a weight that is NULL, NaN,
-- infinite or negative.
CREATE OR REPLACE TEMP MACRO rw_groups_ok(n, null_docs, null_groups, twice, bad_weights) AS
    CASE WHEN n = 0 THEN error('rankwise: the document groups (groups=) are empty: no row')
         WHEN null_docs > 0 THEN error('rankwise: the document groups (groups=) hold ' || CAST(null_docs AS VARCHAR)
                                       || ' NULL document(s)')
         WHEN null_groups > 0 THEN error('rankwise: the document groups (groups=) hold ' || CAST(null_groups AS VARCHAR)
                                         || ' NULL group(s)')
         WHEN twice > 0 THEN error('rankwise: the document groups (groups=) give ' || CAST(twice AS VARCHAR)
                                   || ' (document, group) pair(s) more than once')
         WHEN bad_weights > 0 THEN error('rankwise: the document groups (groups=) hold ' || CAST(bad_weights AS VARCHAR)
                                         || ' weight(s) that are NULL, NaN, infinite or negative; a weight is a finite number >= 0')
         ELSE true END;

-- The target's data check (to_sql's target table): true, or an error naming the fault: no row, NULL queries or
-- groups, a (query, group) pair given twice, a share that is NULL, NaN, infinite or negative, a query whose shares
-- are all 0.
CREATE OR REPLACE TEMP MACRO rw_target_ok(n, null_queries, null_groups, twice, bad_shares, zero) AS
    CASE WHEN n = 0 THEN error('rankwise: the target distribution (target=) is empty: no row')
         WHEN null_queries > 0 THEN error('rankwise: the target distribution (target=) holds '
                                          || CAST(null_queries AS VARCHAR) || ' NULL query(s)')
         WHEN null_groups > 0 THEN error('rankwise: the target distribution (target=) holds '
                                         || CAST(null_groups AS VARCHAR) || ' NULL group(s)')
         WHEN twice > 0 THEN error('rankwise: the target distribution (target=) gives ' || CAST(twice AS VARCHAR)
                                   || ' (query, group) pair(s) more than once')
         WHEN bad_shares > 0 THEN error('rankwise: the target distribution (target=) holds ' || CAST(bad_shares AS VARCHAR)
                                        || ' share(s) that are NULL, NaN, infinite or negative; a share is a finite number >= 0')
         WHEN zero > 0 THEN error('rankwise: the target distribution (target=) gives ' || CAST(zero AS VARCHAR)
                                  || ' query(s) shares that are all 0; a target needs a positive share')
         ELSE true END;

-- Expected exposure (Diaz et al. 2020; expeval): a deterministic run, one sample per query. A relevance level of m
-- relevant documents (relevance > 0) below b of higher relevance has the target exposure (pp^b - pp^(b+m)) /
-- (m (1 - pp)) per document, pp = p (rbp) or p (1 - u) (gerr); the document at rank rnk gets p^(rnk - 1), times
-- (1 - u)^(relevant documents ranked above it) under gerr (cumpos: the running count of relevant documents).
CREATE OR REPLACE TEMP MACRO rw_positive_step(rel) AS CASE WHEN rel > 0 THEN 1 ELSE 0 END;
-- windows over the (run-ordered) ideal order irank of query qid, by the gain g: b and m of the row's level
CREATE OR REPLACE TEMP MACRO rw_run_level_start(qid, g, irank) AS
    CAST(min(irank) OVER (PARTITION BY qid, g) - 1 AS DOUBLE);
CREATE OR REPLACE TEMP MACRO rw_run_level_size(qid, g, irank) AS CAST(count(irank) OVER (PARTITION BY qid, g) AS DOUBLE);
CREATE OR REPLACE TEMP MACRO rw_ideal_level_start(g, qid, irank) AS
    CAST(min(irank) OVER (PARTITION BY qid, g) - 1 AS DOUBLE);
CREATE OR REPLACE TEMP MACRO rw_ideal_level_size(g, qid, irank) AS CAST(count(irank) OVER (PARTITION BY qid, g) AS DOUBLE);
CREATE OR REPLACE TEMP MACRO rw_level_target(lstart, lsize, um, p, u) AS
    (pow(CASE WHEN um = 'rbp' THEN p ELSE p * (1.0 - u) END, lstart)
     - pow(CASE WHEN um = 'rbp' THEN p ELSE p * (1.0 - u) END, lstart + lsize))
    / (lsize * (1.0 - CASE WHEN um = 'rbp' THEN p ELSE p * (1.0 - u) END));
CREATE OR REPLACE TEMP MACRO rw_exposure(rel, rnk, cumpos, um, p, u) AS
    pow(p, rnk - 1) * CASE WHEN um = 'gerr' THEN pow(1.0 - u, cumpos - rw_positive_step(rel)) ELSE 1.0 END;

-- Σ_{rnk <= k} ε² (EE-D, disparity).
CREATE OR REPLACE TEMP MACRO rw_exposure_square_sum(rel, rnk, cumpos, k, um, p, u) AS
    coalesce(sum(CASE WHEN rw_within(rnk, k) THEN pow(rw_exposure(rel, rnk, cumpos, um, p, u), 2) ELSE 0.0 END), 0.0)::DOUBLE;
-- Σ_{rnk <= k} ε ε* (EE-R, relevance; ε* 0 for a document not relevant).
CREATE OR REPLACE TEMP MACRO rw_exposure_target_sum(rel, rnk, cumpos, lstart, lsize, k, um, p, u) AS
    coalesce(sum(CASE WHEN rw_within(rnk, k) AND lstart IS NOT NULL
                      THEN rw_exposure(rel, rnk, cumpos, um, p, u) * rw_level_target(lstart, lsize, um, p, u)
                      ELSE 0.0 END), 0.0)::DOUBLE;
-- Σ over the relevant judgments of ε*².
CREATE OR REPLACE TEMP MACRO rw_target_square_sum(rel, lstart, lsize, um, p, u) AS
    coalesce(sum(CASE WHEN rel > 0 THEN pow(rw_level_target(lstart, lsize, um, p, u), 2) ELSE 0.0 END), 0.0)::DOUBLE;
-- The distinct relevance values > 0.
CREATE OR REPLACE TEMP MACRO rw_relevance_levels(rel) AS CAST(count(DISTINCT CASE WHEN rel > 0 THEN rel END) AS DOUBLE);

-- TREC Fair Ranking 2021 Task 2's expected exposure of the groups at the deepest rank <= k (one sequence): fa2 =
-- Σ_g A_g², faq = Σ_g A_g t_g, fq2 = Σ_g t_g² (A_g the group's discounted exposure, t_g its share); the target
-- exposure is the share times available (Σ_{i <= 50} 1 / log2(max(i, 2))): 'L' ‖A − t‖², 'D' ‖A‖², 'R' A·t.
CREATE OR REPLACE TEMP MACRO rw_trec_exposure(rnk, fa2, faq, fq2, k, measure, available) AS
    (CASE WHEN measure = 'D' THEN max_by(fa2, rnk) FILTER (WHERE rw_within(rnk, k))
          WHEN measure = 'R' THEN available * max_by(faq, rnk) FILTER (WHERE rw_within(rnk, k))
          ELSE max_by(fa2, rnk) FILTER (WHERE rw_within(rnk, k))
               - 2.0 * available * max_by(faq, rnk) FILTER (WHERE rw_within(rnk, k))
               + available * available * max(fq2) END)::DOUBLE;
-- TREC Fair Ranking 2022 Task 2's EEL: the same of the exposures the relevant rows alone give the groups (fa2r, faqr).
CREATE OR REPLACE TEMP MACRO rw_trec_relevant_exposure(rnk, fa2r, faqr, fq2, k, measure, available) AS
    rw_trec_exposure(rnk, fa2r, faqr, fq2, k, measure, available);

-- Expected exposure of a stochastic run (sample=): each (query, sample) ranking is a key of its own, of the fixed
-- layout (g << 2 bits) | (S << bits) | s (rankwise.primitives.SAMPLE_BITS): qid >> 2 bits is the query whose
-- samples the key's ranking is one of, (qid >> bits) & (2^bits - 1) their number S. W_d: Σ of the row's document's
-- exposures (ranks <= k) over the query's samples (a window); Σ_{rnk <= k} ε W_d / S, averaged over the query's
-- samples, is Σ_d ε̄_d², ε̄_d the document's mean exposure over them (expeval's EE-D).
CREATE OR REPLACE TEMP MACRO rw_sample_exposure_sum(rel, rnk, doc, qid, cumpos, k, um, p, u, bits) AS
    sum(CASE WHEN rw_within(rnk, k) THEN rw_exposure(rel, rnk, cumpos, um, p, u) ELSE 0.0 END)
        OVER (PARTITION BY qid::BIGINT >> (2 * bits), doc);
CREATE OR REPLACE TEMP MACRO rw_sampled_exposure_square_sum(rel, rnk, qid, cumpos, wsum, k, um, p, u, bits) AS
    (coalesce(sum(CASE WHEN rw_within(rnk, k) THEN rw_exposure(rel, rnk, cumpos, um, p, u) * wsum ELSE 0.0 END), 0.0)
     / max((qid::BIGINT >> bits) & ((1::BIGINT << bits) - 1)))::DOUBLE;
