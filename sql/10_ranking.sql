-- rankwise ranking macros: turn a run into ranked rows, judgments into the ideal order.
-- Tables (or views, or file paths readable by DuckDB) must have the columns
--   run:   query_id, doc_id, score
--   qrels: query_id, doc_id, relevance
-- The table macros check their inputs first (sql/05_checks.sql): NULL ids, NULL or NaN scores,
-- NULL/NaN/infinite relevance and duplicated documents are errors naming the column and an
-- example, as are bad parameters. checks := false skips the checks (inputs validated upstream):
-- the rows are then used as they are.

-- The run joined with its judgments and ranked per query (rnk = 1 is the top).
-- ties: 'trec_eval' (score desc, then doc_id desc compared as text, as trec_eval's strcmp:
--       integer doc 5 ranks above 48 and 100), 'doc_asc' (score desc, doc_id asc as text),
--       'doc_desc_numeric' (score desc, doc_id desc in the column's own type: 100 above 48
--       above 5), 'optimistic' / 'pessimistic' (among equal scores, most / least relevant
--       first, then doc_id desc as text), 'input' (among equal scores, the run's order as
--       scanned: row_number() OVER (), a table's insertion order while DuckDB preserves
--       insertion order, its default; SQL tables have no other order).
-- max_rank: keep the top max_rank per query (trec_eval -M); judged_only: then drop unjudged
-- documents and those judged negative (trec_eval 10: "in the pool but unjudged") and rank
-- again (trec_eval -J).
CREATE OR REPLACE TEMP MACRO rw_ranked(qrels_table, run_table, ties := 'trec_eval', max_rank := NULL, judged_only := false, checks := true) AS TABLE
    WITH joined AS (
        SELECT r.query_id, r.doc_id, r.score::DOUBLE AS score, j.relevance::DOUBLE AS relevance, r.input_order
        FROM (SELECT *, row_number() OVER () AS input_order FROM query_table(run_table)) AS r
        LEFT JOIN query_table(qrels_table) AS j
            ON r.query_id = j.query_id AND r.doc_id = j.doc_id
        WHERE NOT checks OR (
            rw_check_ties(ties) AND rw_check_positive('max_rank', max_rank, null_ok := true)
            AND (SELECT ok FROM rw_check_run(run_table)) AND (SELECT ok FROM rw_check_qrels(qrels_table))
        )
    ),
    ranked AS (
        SELECT *,
            row_number() OVER (
                PARTITION BY query_id
                -- generated: rw_ranked order
                ORDER BY score DESC,
                    CASE WHEN ties NOT IN ('doc_asc', 'doc_desc_numeric', 'input', 'optimistic', 'pessimistic') THEN CAST(doc_id AS STRING) END DESC,
                    CASE WHEN ties = 'doc_asc' THEN CAST(doc_id AS STRING) END ASC,
                    CASE WHEN ties = 'doc_desc_numeric' THEN doc_id END DESC,
                    CASE WHEN ties = 'input' THEN input_order END ASC,
                    CASE WHEN ties = 'optimistic' THEN coalesce(relevance, 0.0) END DESC,
                    CASE WHEN ties = 'pessimistic' THEN coalesce(relevance, 0.0) END ASC,
                    CASE WHEN ties = 'optimistic' THEN CAST(doc_id AS STRING) END DESC,
                    CASE WHEN ties = 'pessimistic' THEN CAST(doc_id AS STRING) END DESC
                -- end generated: rw_ranked order
            ) AS rnk0
        FROM joined
    )
    SELECT query_id, doc_id, score, relevance,
        CASE WHEN judged_only
            THEN row_number() OVER (PARTITION BY query_id ORDER BY rnk0)
            ELSE rnk0
        END AS rnk
    FROM ranked
    WHERE (max_rank IS NULL OR rnk0 <= max_rank)
      AND (NOT judged_only OR relevance >= 0);

-- Judgments with their rank in the ideal order (relevance descending): irank, unchecked (the
-- inputs validated upstream).
CREATE OR REPLACE TEMP MACRO rw_ideal_order(qrels_table) AS TABLE
    SELECT query_id, doc_id, relevance::DOUBLE AS relevance,
        row_number() OVER (PARTITION BY query_id ORDER BY relevance DESC) AS irank
    FROM query_table(qrels_table);

-- The same, checked first: checks := false skips the qrels' checks (but DuckDB still computes
-- the check's subquery then; a statement over validated inputs reads rw_ideal_order).
CREATE OR REPLACE TEMP MACRO rw_judgments(qrels_table, checks := true) AS TABLE
    SELECT * FROM rw_ideal_order(qrels_table)
    WHERE NOT checks OR (SELECT ok FROM rw_check_qrels(qrels_table));

-- Window: running Σ x down the ranking (or the ideal order) of query qid.
CREATE OR REPLACE TEMP MACRO rw_running_sum(x, qid, rnk) AS
    sum(x) OVER (
        PARTITION BY qid ORDER BY rnk ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
    );

-- Per-row steps of the running sums below: a query's running value at a rank is the sum of
-- its steps down to that rank (the engine sums them over its ranking window directly).
CREATE OR REPLACE TEMP MACRO rw_rel_step(rel, t) AS CASE WHEN rw_is_rel(rel, t) THEN 1 ELSE 0 END;
CREATE OR REPLACE TEMP MACRO rw_nonrel_step(rel, t) AS CASE WHEN rel >= 0 AND rel < t THEN 1 ELSE 0 END;
CREATE OR REPLACE TEMP MACRO rw_pooled_step(rel) AS CASE WHEN rel < 0 THEN 1 ELSE 0 END;
CREATE OR REPLACE TEMP MACRO rw_log_continue_step(rel, max_rel) AS ln(1.0 - rw_err_stop(rel, max_rel));
CREATE OR REPLACE TEMP MACRO rw_gain_step(g) AS g;
CREATE OR REPLACE TEMP MACRO rw_dcg_step(g, rnk) AS g / log2(rnk::DOUBLE + 1.0);
-- RBO's weight of depth rnk, p^(rnk - 1) / rnk (summed: Σ_{d <= rnk} p^(d - 1) / d).
CREATE OR REPLACE TEMP MACRO rw_rbo_weight(rnk, p) AS pow(p, rnk::DOUBLE - 1.0) / rnk::DOUBLE;
CREATE OR REPLACE TEMP MACRO rw_rbo_step(rnk, p) AS rw_rbo_weight(rnk, p);

-- Window: running count of relevant documents down the ranking of query qid.
CREATE OR REPLACE TEMP MACRO rw_cum_rel(rel, t, qid, rnk) AS rw_running_sum(rw_rel_step(rel, t), qid, rnk);

-- Window: rank of each retrieved document in the ideal order of the retrieved list.
CREATE OR REPLACE TEMP MACRO rw_ideal_rank(rel, qid) AS
    row_number() OVER (PARTITION BY qid ORDER BY rw_gain(rel, 'linear') DESC);

-- Window: running count of judged non-relevant documents (0 <= relevance < t) down the ranking.
CREATE OR REPLACE TEMP MACRO rw_cum_nonrel(rel, t, qid, rnk) AS rw_running_sum(rw_nonrel_step(rel, t), qid, rnk);

-- Window: running Σ ln(1 − stop probability) of ERR's cascade model down the ranking.
CREATE OR REPLACE TEMP MACRO rw_cum_log_continue(rel, max_rel, qid, rnk) AS
    rw_running_sum(rw_log_continue_step(rel, max_rel), qid, rnk);

-- Window: running DCG Σ_{j <= rnk} g_j / log2(j + 1) (g: gain values).
CREATE OR REPLACE TEMP MACRO rw_cum_dcg(g, qid, rnk) AS
    rw_running_sum(rw_dcg_step(g, rnk), qid, rnk);

-- Window over the ideal order (g: positive gains, rnk: ideal rank): true at the last rank of
-- each run of equal positive gains (the next gain differs; beyond the list it is 0).
CREATE OR REPLACE TEMP MACRO rw_ideal_boundary(g, qid, rnk) AS
    g > 0 AND g <> lead(g, 1, 0.0) OVER (PARTITION BY qid ORDER BY rnk);

-- max(g - 1, 0): G's cost of a rank beyond one.
CREATE OR REPLACE TEMP MACRO rw_excess(g) AS greatest(g - 1.0, 0.0);

-- The ideal prefix (rankwise/primitives.py IdealPrefix): windows over the judgments of query
-- qid in the ideal order (irank) of the gains g: IDCG_i, the running excess, the boundaries.
CREATE OR REPLACE TEMP MACRO rw_ideal_dcg_at(g, qid, irank) AS rw_cum_dcg(greatest(g, 0.0), qid, irank);
CREATE OR REPLACE TEMP MACRO rw_ideal_excess_at(g, qid, irank) AS rw_running_sum(rw_excess(greatest(g, 0.0)), qid, irank);
CREATE OR REPLACE TEMP MACRO rw_ideal_boundary_at(g, qid, irank) AS rw_ideal_boundary(greatest(g, 0.0), qid, irank);
-- the gain at each ideal rank (a row value: qid and irank place it)
CREATE OR REPLACE TEMP MACRO rw_ideal_gain_at(g, qid, irank) AS greatest(g, 0.0);
-- Σ over the ideal boundaries at ideal rank >= irank of 1 / IDCG there (igd, igb: the values
-- above, computed first): Rndcg's weight of a DCG step at that rank (a window over the others).
CREATE OR REPLACE TEMP MACRO rw_ideal_boundary_inv_from(qid, irank, igd, igb) AS
    rw_running_sum(CASE WHEN igb THEN 1.0 / igd ELSE 0.0 END, qid, -irank);

-- The run-ordered ideal (rankwise/primitives.py RunIdealValue): a window over the judgments of
-- positive gain of query qid in that order (irank), joined to the ranked rows by document:
-- Σ_{j < irank} p^(j - 1) / j.
CREATE OR REPLACE TEMP MACRO rw_rbo_weight_before(qid, irank, p) AS
    rw_running_sum(rw_rbo_weight(irank, p), qid, irank) - rw_rbo_weight(irank, p);
