-- rankwise one-statement evaluation: per-query metrics for two tables (or file paths), at
-- trec_eval's default conventions, with cutoff k for the @k columns:
--   SELECT * FROM rw_evaluate('run', 'qrels');            -- k = 10
--   SELECT * FROM rw_evaluate('run.parquet', 'qrels.parquet', k := 20);
-- Columns: query_id, NumRet, NumRel, NumRelRet, AP, RR, Rprec, nDCG, "nDCG@k", "P@k", "R@k",
-- "Success@k" (named literally "@k"; k is the parameter). Queries without judgments are left
-- out, like trec_eval. The inputs and k are checked first (sql/05_checks.sql: an error names
-- the problem, the column and an example); checks := false skips the checks.
CREATE OR REPLACE TEMP MACRO rw_evaluate(run_table, qrels_table, k := 10, checks := true) AS TABLE
    WITH qs AS (
        SELECT query_id,
            rw_nrel(relevance, 1) AS nrel,
            rw_dcg(relevance, irank, NULL, 'linear', 'log2', 2) AS idcg,
            rw_dcg(relevance, irank, k, 'linear', 'log2', 2) AS idcg_k
        FROM rw_judgments(qrels_table, checks := false)
        WHERE NOT checks OR rw_check_positive('k', k)
        GROUP BY query_id
    ),
    rows AS (
        SELECT r.*, qs.nrel, rw_cum_rel(r.relevance, 1, r.query_id, r.rnk) AS cumrel
        FROM rw_ranked(run_table, qrels_table, checks := checks) AS r
        JOIN qs USING (query_id)
    ),
    ag AS (
        SELECT query_id,
            count(*)::DOUBLE AS num_ret,
            rw_relret(relevance, rnk, 1, NULL) AS relret,
            rw_ap_sum(relevance, rnk, cumrel, 1, NULL) AS ap_sum,
            rw_first_rel(relevance, rnk, 1, NULL) AS first_rel,
            rw_relret_at(relevance, rnk, 1, nrel) AS rprec_hits,
            rw_dcg(relevance, rnk, NULL, 'linear', 'log2', 2) AS dcg,
            rw_dcg(relevance, rnk, k, 'linear', 'log2', 2) AS dcg_k,
            rw_relret(relevance, rnk, 1, k) AS relret_k
        FROM rows
        GROUP BY query_id
    )
    SELECT query_id,
        num_ret AS "NumRet",
        nrel AS "NumRel",
        relret AS "NumRelRet",
        rw_div0(ap_sum, nrel) AS "AP",
        rw_recip0(first_rel) AS "RR",
        rw_div0(rprec_hits, nrel) AS "Rprec",
        rw_div0(dcg, idcg) AS "nDCG",
        rw_div0(dcg_k, idcg_k) AS "nDCG@k",
        relret_k / k AS "P@k",
        rw_div0(relret_k, nrel) AS "R@k",
        rw_positive(relret_k) AS "Success@k"
    FROM ag JOIN qs USING (query_id)
    ORDER BY query_id;
