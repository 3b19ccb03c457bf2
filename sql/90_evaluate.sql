-- rankwise one-statement evaluation (written by rankwise/_sql/generate.py from the metrics'
-- recipes: python -m rankwise._sql.generate): per-query metrics for two tables (or file paths), at
-- trec_eval's default conventions, with cutoff k for the @k columns:
--   SELECT * FROM rw_evaluate('run', 'qrels');            -- k = 10
--   SELECT * FROM rw_evaluate('run.parquet', 'qrels.parquet', k := 20);
-- Columns: query_id, NumRet, NumRel, NumRelRet, AP, RR, Rprec, nDCG, "nDCG@k", "P@k", "R@k",
-- "Success@k" (named literally "@k"; k is the parameter). Queries without judgments are left
-- out, like trec_eval. The inputs and k are checked first (sql/05_checks.sql: an error names
-- the problem, the column and an example); checks := false skips the checks.
-- generated: rw_evaluate
CREATE OR REPLACE TEMP MACRO rw_evaluate(run_table, qrels_table, k := 10, checks := true) AS TABLE
    WITH rw_run AS (SELECT query_id, doc_id, score::DOUBLE AS score FROM query_table(run_table) WHERE NOT checks OR (rw_check_positive('k', k) AND (SELECT ok FROM rw_check_run(run_table)))),
    rw_qrels AS (SELECT query_id, doc_id, relevance::DOUBLE AS relevance FROM query_table(qrels_table) WHERE NOT checks OR (SELECT ok FROM rw_check_qrels(qrels_table))),
    qj AS (SELECT * FROM rw_judgments(qrels_table, checks := false)),
    qs AS (SELECT query_id, count(*) AS n_judged, rw_nrel(relevance, 1.0) AS q0, rw_idcg(rw_gain(relevance, 'linear'), irank, NULL, 'log2', 2.0) AS q1, rw_idcg(rw_gain(relevance, 'linear'), irank, k, 'log2', 2.0) AS q2 FROM qj GROUP BY query_id),
    joined AS (SELECT r.query_id, r.doc_id, r.score, j.relevance FROM rw_run AS r LEFT JOIN rw_qrels AS j ON r.query_id = j.query_id AND r.doc_id = j.doc_id),
    ranked0 AS (SELECT query_id, relevance, score AS score, row_number() OVER w AS rnk, sum(rw_rel_step(relevance, 1.0)) OVER w AS s0 FROM joined WINDOW w AS (PARTITION BY query_id ORDER BY score DESC, CAST(doc_id AS STRING) DESC ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)),
    rows0 AS (SELECT * FROM ranked0 AS r JOIN qs USING (query_id)),
    ag0 AS (SELECT query_id, rw_count() AS r0_0, rw_relret(relevance, rnk, 1.0, NULL) AS r0_1, rw_ap_sum(relevance, rnk, s0, 1.0, NULL) AS r0_2, rw_first_rel(relevance, rnk, 1.0, NULL) AS r0_3, rw_relret_at_nrel(relevance, rnk, q0, 1.0, 1.0) AS r0_4, rw_dcg_gain(rw_gain(relevance, 'linear'), rnk, NULL, 'log2', 2.0) AS r0_5, rw_dcg_gain(rw_gain(relevance, 'linear'), rnk, k, 'log2', 2.0) AS r0_6, rw_relret(relevance, rnk, 1.0, k) AS r0_7 FROM rows0 GROUP BY query_id)
    SELECT query_id AS "query_id", CAST(coalesce(ag0.r0_0, 0.0) AS DOUBLE) AS "NumRet", CAST(qs.q0 AS DOUBLE) AS "NumRel", CAST(coalesce(ag0.r0_1, 0.0) AS DOUBLE) AS "NumRelRet", CAST(rw_div0(coalesce(ag0.r0_2, 0.0), qs.q0) AS DOUBLE) AS "AP", CAST(rw_recip0(ag0.r0_3) AS DOUBLE) AS "RR", CAST(rw_div0(coalesce(ag0.r0_4, 0.0), qs.q0) AS DOUBLE) AS "Rprec", CAST(rw_div0(coalesce(ag0.r0_5, 0.0), qs.q1) AS DOUBLE) AS "nDCG", CAST(rw_div0(coalesce(ag0.r0_6, 0.0), qs.q2) AS DOUBLE) AS "nDCG@k", CAST(rw_div(coalesce(ag0.r0_7, 0.0), k) AS DOUBLE) AS "P@k", CAST(rw_div0(coalesce(ag0.r0_7, 0.0), qs.q0) AS DOUBLE) AS "R@k", CAST(rw_positive(coalesce(ag0.r0_7, 0.0)) AS DOUBLE) AS "Success@k"
    FROM qs AS qs JOIN ag0 USING (query_id)
    ORDER BY 1;
-- end generated: rw_evaluate
