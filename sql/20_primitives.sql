-- rankwise per-query primitives: aggregate macros used in a GROUP BY query_id over ranked rows
-- (columns relevance and rank) or over judgments (relevance and ideal rank irank).
-- Every metric is a formula over these (see rankwise/recipes.py); no metric has its own copy.
-- Each primitive declared in rankwise/primitives.py is the macro rw_<its binding name>, with
-- the parameter names of its Polars function (tests/test_primitives.py checks them):
-- rel the relevance, rnk the rank, g the gain values, the inputs (cumrel, nrel, ...) by name.

-- Number of ranked documents: the deepest rank (ranks run 1, 2, ...; a statement that keeps the
-- judged rows alone keeps each query's last ranked row too).
CREATE OR REPLACE TEMP MACRO rw_count(rnk) AS coalesce(max(rnk), 0)::DOUBLE;

-- Number of relevant documents (relevance >= t) at rank <= k (k NULL: all ranks).
CREATE OR REPLACE TEMP MACRO rw_relret(rel, rnk, t, k) AS
    (count(*) FILTER (WHERE rw_is_rel(rel, t) AND rw_within(rnk, k)))::DOUBLE;

-- Σ_{i <= k} g_i / discount(i), g the gain values (any gain expression, e.g. a gain table).
CREATE OR REPLACE TEMP MACRO rw_dcg_gain(g, rnk, k, discount, base) AS
    coalesce(sum(CASE WHEN rw_within(rnk, k)
                      THEN g / rw_discount(rnk, discount, base)
                      ELSE 0.0 END), 0.0)::DOUBLE;

-- Σ_{i <= k} gain(rel_i) / discount(i): DCG over retrieval ranks, IDCG over ideal ranks.
CREATE OR REPLACE TEMP MACRO rw_dcg(rel, rnk, k, gain, discount, base) AS
    rw_dcg_gain(rw_gain(rel, gain), rnk, k, discount, base);

-- Σ_{i <= k} g_i, g the gain values.
CREATE OR REPLACE TEMP MACRO rw_cg_gain(g, rnk, k) AS
    coalesce(sum(CASE WHEN rw_within(rnk, k) THEN g ELSE 0.0 END), 0.0)::DOUBLE;

-- Σ_{i <= k} gain(rel_i).
CREATE OR REPLACE TEMP MACRO rw_cg(rel, rnk, k, gain) AS rw_cg_gain(rw_gain(rel, gain), rnk, k);

-- Σ_{i <= k, relevant} cumrel_i / i, with cumrel from rw_cum_rel (the sum in AP).
CREATE OR REPLACE TEMP MACRO rw_ap_sum(rel, rnk, cumrel, t, k) AS
    coalesce(sum(CASE WHEN rw_is_rel(rel, t) AND rw_within(rnk, k)
                      THEN cumrel::DOUBLE / rnk::DOUBLE
                      ELSE 0.0 END), 0.0)::DOUBLE;

-- Smallest rank <= k holding a relevant document (NULL when none).
CREATE OR REPLACE TEMP MACRO rw_first_rel(rel, rnk, t, k) AS
    (min(rnk) FILTER (WHERE rw_is_rel(rel, t) AND rw_within(rnk, k)))::DOUBLE;

-- Number of relevant documents at rank <= depth (depth: a column, e.g. R for R-precision).
CREATE OR REPLACE TEMP MACRO rw_relret_at(rel, rnk, t, depth) AS
    (count(*) FILTER (WHERE rw_is_rel(rel, t) AND rnk <= depth))::DOUBLE;

-- Number of relevant documents (over judgments: R).
CREATE OR REPLACE TEMP MACRO rw_nrel(rel, t) AS
    (count(*) FILTER (WHERE rw_is_rel(rel, t)))::DOUBLE;

-- The largest judged relevance below low, above high (NULL: no bound above) or, with whole, not an
-- integer; NULL where none is (the metrics' labels parameter: a library's check on its labels).
CREATE OR REPLACE TEMP MACRO rw_label_outside(rel, whole, low, high) AS
    max(CASE WHEN rel < low OR rel > coalesce(high, rel) OR (whole AND rel <> floor(rel)) THEN rel::DOUBLE END);

-- Number of judged non-relevant documents (0 <= relevance < t).
CREATE OR REPLACE TEMP MACRO rw_nonrel_judged(rel, t) AS
    (count(*) FILTER (WHERE rel >= 0 AND rel < t))::DOUBLE;

-- Number of documents at rank <= k that are unjudged, or judged negative (trec_eval 10: "in
-- the pool but unjudged").
CREATE OR REPLACE TEMP MACRO rw_unjudged(rel, rnk, k) AS
    (count(*) FILTER (WHERE (rel IS NULL OR rel < 0) AND rw_within(rnk, k)))::DOUBLE;

-- Number of documents at rank <= k absent from the qrels (a negative judgment is a judgment).
CREATE OR REPLACE TEMP MACRO rw_not_judged(rel, rnk, k) AS
    (count(*) FILTER (WHERE rel IS NULL AND rw_within(rnk, k)))::DOUBLE;

-- bpref's sum (Buckley & Voorhees 2004, as trec_eval): over relevant documents,
-- 1 - min(n, R) / min(N, R), n = cumnonrel (rw_cum_nonrel), N = judged non-relevant, R = relevant.
CREATE OR REPLACE TEMP MACRO rw_bpref_sum(rel, t, cumnonrel, nrel, nnonrel) AS
    coalesce(sum(CASE
        WHEN NOT rw_is_rel(rel, t) THEN 0.0
        WHEN cumnonrel = 0 THEN 1.0
        ELSE 1.0 - least(cumnonrel, nrel)::DOUBLE / least(nnonrel, nrel)::DOUBLE
    END), 0.0)::DOUBLE;

-- Interpolated precision at recall level: max(cumrel / rnk) over the ranks where
-- cumrel >= floor(level * R + shift) (shift 0.5: trec_eval 10's lround; 0.9: trec_eval 9);
-- 0 when there is none.
CREATE OR REPLACE TEMP MACRO rw_iprec(rnk, cumrel, nrel, level, shift) AS
    coalesce(max(cumrel::DOUBLE / rnk::DOUBLE)
             FILTER (WHERE cumrel >= floor(level * nrel + shift)), 0.0)::DOUBLE;

-- Accuracy's sum: over relevant documents at rank <= k, the non-relevant documents (unjudged
-- included) ranked above, rnk - cumrel (cumrel from rw_cum_rel).
CREATE OR REPLACE TEMP MACRO rw_nonrel_above_sum(rel, rnk, cumrel, t, k) AS
    coalesce(sum(CASE WHEN rw_is_rel(rel, t) AND rw_within(rnk, k)
                      THEN rnk::DOUBLE - cumrel::DOUBLE ELSE 0.0 END), 0.0)::DOUBLE;

-- binG's sum: over relevant documents, 1 / log2(2 + rnk - cumrel) (cumrel from rw_cum_rel).
CREATE OR REPLACE TEMP MACRO rw_bing_sum(rel, rnk, cumrel, t) AS
    coalesce(sum(CASE WHEN rw_is_rel(rel, t)
                      THEN 1.0 / log2(2.0 + rnk::DOUBLE - cumrel::DOUBLE)
                      ELSE 0.0 END), 0.0)::DOUBLE;

-- RankEff's sum (Büttcher et al. 2007): over relevant documents, 1 - cumnonrel / N (1 when N = 0).
CREATE OR REPLACE TEMP MACRO rw_rankeff_sum(rel, t, cumnonrel, nnonrel) AS
    coalesce(sum(CASE
        WHEN NOT rw_is_rel(rel, t) THEN 0.0
        WHEN nnonrel = 0 THEN 1.0
        ELSE 1.0 - cumnonrel::DOUBLE / nnonrel::DOUBLE
    END), 0.0)::DOUBLE;

-- Σ over relevant documents of p^(rnk - 1) (RBP without its (1 - p) factor).
CREATE OR REPLACE TEMP MACRO rw_rbp_sum(rel, rnk, t, p, k, graded) AS
    coalesce(sum(CASE WHEN rw_is_rel(rel, t) AND rw_within(rnk, k)
        THEN (CASE WHEN graded THEN rel ELSE 1.0 END) * pow(p, rnk - 1.0) ELSE 0.0 END), 0.0)::DOUBLE;

-- ERR's sum: Σ_{rnk <= k} stop / rnk · Π_{earlier} (1 - stop), the product from
-- cumlog = rw_cum_log_continue (inclusive, so this row's own factor is taken back out).
-- Compat's pieces (RBO of the run and the run-ordered ideal), C(m) = Σ_{d <= m} p^(d - 1) / d:
-- over the ranked rows of positive gain, max(C(rnk - 1), C(i* - 1)) with crun the running
-- C(rnk) and cideal C(i* - 1) at the document's rank i* in the run-ordered ideal;
CREATE OR REPLACE TEMP MACRO rw_rbo_overlap_before(g, rnk, crun, cideal, p) AS
    coalesce(sum(CASE WHEN g > 0 THEN greatest(crun - rw_rbo_weight(rnk, p), cideal) ELSE 0.0 END), 0.0)::DOUBLE;
-- over all ranked rows, C(n).
CREATE OR REPLACE TEMP MACRO rw_rbo_weights(rnk, p) AS coalesce(sum(rw_rbo_weight(rnk, p)), 0.0)::DOUBLE;

CREATE OR REPLACE TEMP MACRO rw_err_sum(rel, rnk, cumlog, k, max_rel) AS
    coalesce(sum(CASE WHEN rw_within(rnk, k)
                      THEN rw_err_stop(rel, max_rel) / rnk::DOUBLE
                           * exp(cumlog - ln(1.0 - rw_err_stop(rel, max_rel)))
                      ELSE 0.0 END), 0.0)::DOUBLE;

-- infAP's sum (Yilmaz & Aslam 2006, as trec_eval): over relevant documents,
-- (1 + X (a + eps) / (a + n + 2 eps)) / rnk with a = cumrel - 1, n = cumnonrel,
-- X = a + n + cumpooled, eps = 1e-5.
CREATE OR REPLACE TEMP MACRO rw_infap_sum(rel, rnk, cumrel, cumnonrel, cumpooled, t) AS
    coalesce(sum(CASE WHEN rw_is_rel(rel, t)
        THEN (1.0 + (cumrel - 1.0 + cumnonrel + cumpooled) * (cumrel - 1.0 + 1e-5)
                    / (cumrel - 1.0 + cumnonrel + 2e-5)) / rnk::DOUBLE
        ELSE 0.0 END), 0.0)::DOUBLE;

-- ndcg_rel's sum: over documents of positive gain g, cumdcg / IDCG_{min(rnk, npos)}, with igd
-- the ideal prefix joined at this rank (NULL beyond npos: the whole ideal DCG idcg_total).
CREATE OR REPLACE TEMP MACRO rw_ndcg_rel_sum(g, cumdcg, igd, idcg_total) AS
    coalesce(sum(CASE WHEN g > 0 THEN cumdcg / coalesce(igd, idcg_total) ELSE 0.0 END), 0.0)::DOUBLE;

-- G's sum (trec_eval G): Σ g / log2(2 + rnk + igx - cumgain), igx the running Σ max(g* - 1, 0)
-- of the ideal gains joined at this rank (NULL beyond npos: excess_total), cumgain the running gain.
CREATE OR REPLACE TEMP MACRO rw_g_sum(g, rnk, cumgain, igx, excess_total) AS
    coalesce(sum(CASE WHEN g <> 0
                      THEN g / log2(2.0 + rnk::DOUBLE + coalesce(igx, excess_total) - cumgain)
                      ELSE 0.0 END), 0.0)::DOUBLE;

-- trec_eval relstring: the characters relchar (rw_rel_char) of the documents at rank <= k, in
-- rank order ('' when there is none). Spark SQL spells the ordered aggregate
-- listagg(relchar, '') WITHIN GROUP (ORDER BY rnk): rankwise._sql.inline rewrites it.
CREATE OR REPLACE TEMP MACRO rw_relstring(relchar, rnk, k) AS
    coalesce(string_agg(relchar, '' ORDER BY rnk) FILTER (WHERE rw_within(rnk, k)), '');

-- DCG@k of the retrieved documents in their ideal order (irank: rw_ideal_rank).
CREATE OR REPLACE TEMP MACRO rw_ideal_dcg_run(g, irank, k, discount, base) AS rw_dcg_gain(g, irank, k, discount, base);

-- Relevant documents at rank <= floor(x * nrel + 0.9) (x = 1: R-precision; trec_eval's Rprec_mult).
CREATE OR REPLACE TEMP MACRO rw_relret_at_nrel(rel, rnk, nrel, t, x) AS
    rw_relret_at(rel, rnk, t, floor(x * nrel + 0.9));

-- Number of retrieved documents of positive gain.
CREATE OR REPLACE TEMP MACRO rw_npos_ret(g) AS (count(*) FILTER (WHERE g > 0))::DOUBLE;

-- Rndcg's Σ over the ideal boundaries b of DCG_min(b, n) / IDCG_b: over the documents of
-- nonzero gain g, the DCG step times igs, the Σ of 1 / IDCG_b over the boundaries b >= rnk (NULL
-- beyond the ideal list: none).
CREATE OR REPLACE TEMP MACRO rw_rndcg_sum(g, rnk, igs) AS
    coalesce(sum(CASE WHEN g <> 0 THEN rw_dcg_step(g, rnk) * coalesce(igs, 0.0) ELSE 0.0 END), 0.0)::DOUBLE;

-- Over the judgments (irank: the ideal rank; igd, igb: the ideal prefix, rw_ideal_boundary):
-- the number of judged non-relevant documents (0 <= relevance < t);
CREATE OR REPLACE TEMP MACRO rw_nonrel(rel, t) AS rw_nonrel_judged(rel, t);
-- IDCG@k;
-- The discount tied documents share (McSherry & Najork 2008; scikit-learn's ndcg_score): the
-- mean of [rnk <= k] / discount(rnk) over the row's tie group (the query's rows of equal score);
-- a row value (a window), and the DCG summed over it.
CREATE OR REPLACE TEMP MACRO rw_tie_discount(rnk, qid, score, k, discount, base) AS
    avg(CASE WHEN rw_within(rnk, k) THEN 1.0 / rw_discount(rnk, discount, base) ELSE 0.0 END)
        OVER (PARTITION BY qid, score);
CREATE OR REPLACE TEMP MACRO rw_tie_dcg(g, tdisc) AS coalesce(sum(g * tdisc), 0.0)::DOUBLE;

-- Expected values over all orders of the tied documents (ties='expected'; rankwise/primitives/trec.py):
-- a tie group (the query's rows of equal score) of m rows, r of them relevant, holds the ranks
-- s + 1 .. s + m, with R_above relevant rows ranked above it. Its values on each row (windows):
-- m;
CREATE OR REPLACE TEMP MACRO rw_tie_size(qid, score) AS (count(*) OVER (PARTITION BY qid, score))::DOUBLE;
-- s + 1, the group's first rank;
CREATE OR REPLACE TEMP MACRO rw_tie_start(rnk, qid, score) AS (min(rnk) OVER (PARTITION BY qid, score))::DOUBLE;
-- r;
CREATE OR REPLACE TEMP MACRO rw_tie_rel(rel, qid, score, t) AS
    sum(CASE WHEN rw_is_rel(rel, t) THEN 1.0::DOUBLE ELSE 0.0::DOUBLE END) OVER (PARTITION BY qid, score);
-- R_above: the running count of relevant rows down the query's ranking less that down the group's.
CREATE OR REPLACE TEMP MACRO rw_tie_rel_above(rel, rnk, qid, score, t) AS
    sum(CASE WHEN rw_is_rel(rel, t) THEN 1.0 ELSE 0.0 END)
        OVER (PARTITION BY qid ORDER BY rnk ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
    - sum(CASE WHEN rw_is_rel(rel, t) THEN 1.0 ELSE 0.0 END)
        OVER (PARTITION BY qid, score ORDER BY rnk ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW);
-- E[relevant at rank <= k] = Σ_{rank <= k} r / m;
CREATE OR REPLACE TEMP MACRO rw_tie_relret(rnk, tsize, trel, k) AS
    coalesce(sum(CASE WHEN rw_within(rnk, k) THEN trel / tsize ELSE 0.0 END), 0.0)::DOUBLE;
-- E[Σ_{i <= k} g_i] = Σ g · the share of the group's ranks within k;
CREATE OR REPLACE TEMP MACRO rw_tie_cg(g, tsize, tstart, k) AS
    coalesce(sum(CASE WHEN k IS NULL THEN g
                      ELSE g * least(greatest(k - tstart + 1.0, 0.0), tsize) / tsize END), 0.0)::DOUBLE;
-- E[AP's sum at k] = Σ_{rank i <= k} (r / m)(R_above + 1 + (i - s - 1)(r - 1)/(m - 1)) / i;
CREATE OR REPLACE TEMP MACRO rw_tie_ap_sum(rnk, tsize, trel, tstart, tabove, k) AS
    coalesce(sum(CASE WHEN rw_within(rnk, k) AND trel > 0
        THEN trel / tsize * (tabove + 1.0 + CASE WHEN tsize > 1 THEN (rnk - tstart) * (trel - 1.0) / (tsize - 1.0)
                                               ELSE 0.0 END) / rnk::DOUBLE
        ELSE 0.0 END), 0.0)::DOUBLE;
-- E[RR@k] = Σ over the ranks i <= k of the first group holding a relevant document of
-- C(m - x, r - 1) / C(m, r) / i, x = i - s (0 where m - x < r - 1);
CREATE OR REPLACE TEMP MACRO rw_tie_rr(rnk, tsize, trel, tstart, tabove, k) AS
    coalesce(sum(CASE WHEN tabove = 0 AND trel > 0 AND rw_within(rnk, k) AND tsize - (rnk - tstart + 1.0) >= trel - 1.0
        THEN exp(rw_ln_choose(tsize - (rnk - tstart + 1.0), trel - 1.0) - rw_ln_choose(tsize, trel)) / rnk::DOUBLE
        ELSE 0.0 END), 0.0)::DOUBLE;
-- E[Success@k] = 1 - C(m - c, r) / C(m, r) over the first group holding a relevant document,
-- c = min(k - s, m) its ranks within k (1 when m - c < r; 0 when c <= 0).
CREATE OR REPLACE TEMP MACRO rw_tie_success(tsize, trel, tstart, tabove, k) AS
    coalesce(max(CASE WHEN tabove = 0 AND trel > 0 AND coalesce(k - tstart + 1.0, 1.0) > 0
        THEN 1.0 - CASE WHEN tsize - least(coalesce(k - tstart + 1.0, tsize), tsize) >= trel
                        THEN exp(rw_ln_choose(tsize - least(coalesce(k - tstart + 1.0, tsize), tsize), trel)
                                 - rw_ln_choose(tsize, trel))
                        ELSE 0.0 END
        ELSE 0.0 END), 0.0)::DOUBLE;

CREATE OR REPLACE TEMP MACRO rw_idcg(g, irank, k, discount, base) AS rw_dcg_gain(g, irank, k, discount, base);
-- the ideal DCG cut at the ranked list's length: over the ranked rows (rnk <= k), the ideal
-- gain at that rank (igain, NULL beyond the ideal list) over its discount
CREATE OR REPLACE TEMP MACRO rw_idcg_list(rnk, igain, k, discount, base) AS
    rw_dcg_gain(coalesce(igain, 0.0), rnk, k, discount, base);
-- the number of documents of positive gain, the sum of the positive gains, the sum of
-- max(gain - 1, 0), and the DCG of the whole ideal list;
-- Over the judgments: C(R), R the judged documents of positive gain (irank 1..R).
CREATE OR REPLACE TEMP MACRO rw_ideal_rbo_weights(g, irank, p) AS
    coalesce(sum(CASE WHEN greatest(g, 0.0) > 0 THEN rw_rbo_weight(irank, p) ELSE 0.0 END), 0.0)::DOUBLE;
CREATE OR REPLACE TEMP MACRO rw_npos(g) AS (count(*) FILTER (WHERE g > 0))::DOUBLE;
CREATE OR REPLACE TEMP MACRO rw_pos_gain(g) AS coalesce(sum(greatest(g, 0.0)), 0.0)::DOUBLE;
CREATE OR REPLACE TEMP MACRO rw_pos_excess(g) AS coalesce(sum(rw_excess(g)), 0.0)::DOUBLE;
CREATE OR REPLACE TEMP MACRO rw_idcg_pos(g, irank) AS coalesce(sum(rw_dcg_step(greatest(g, 0.0), irank)), 0.0)::DOUBLE;
-- the number of ideal boundaries.
CREATE OR REPLACE TEMP MACRO rw_rndcg_bounds(igb) AS (count(*) FILTER (WHERE igb))::DOUBLE;
