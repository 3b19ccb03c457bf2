-- rankwise one-statement evaluation (written by rankwise/_sql/generate.py from the metrics'
-- recipes: python -m rankwise._sql.generate): per-query metrics for two tables (or file paths), at
-- trec_eval's default conventions, with cutoff k for the @k columns:
--   SELECT * FROM rw_evaluate('qrels', 'run');            -- k = 10
--   SELECT * FROM rw_evaluate('qrels.parquet', 'run.parquet', k := 20);
-- Columns: query_id, NumRet, NumRel, NumRelRet, AP, RR, Rprec, nDCG, "nDCG@k", "P@k", "R@k",
-- "Success@k" (named literally "@k"; k is the parameter). Queries without judgments are left
-- out, like trec_eval. The inputs and k are checked first (sql/05_checks.sql: an error names
-- the problem, the column and an example); checks := false skips the checks.
-- generated: rw_evaluate
CREATE OR REPLACE TEMP MACRO rw_evaluate(qrels_table, run_table, k := 10, checks := true) AS TABLE
    WITH rw_run AS (SELECT query_id, doc_id, score::DOUBLE AS score FROM query_table(run_table) WHERE NOT checks OR (rw_check_positive('k', k) AND (SELECT ok FROM rw_check_run(run_table)))),
    rw_qrels AS (SELECT query_id, doc_id, relevance::DOUBLE AS relevance FROM query_table(qrels_table) WHERE NOT checks OR (SELECT ok FROM rw_check_qrels(qrels_table))),
    qj AS (SELECT * FROM rw_ideal_order(qrels_table)),
    qs AS (SELECT query_id, count(*) AS n_judged, rw_nrel(relevance, 1.0) AS q0, rw_idcg(rw_gain(relevance, 'linear'), irank, NULL, 'log2', 2.0) AS q1, rw_idcg(rw_gain(relevance, 'linear'), irank, k, 'log2', 2.0) AS q2 FROM qj GROUP BY query_id),
    joined AS (SELECT r.query_id, r.doc_id, r.score, CAST(1.0 AS DOUBLE) AS cost, j.relevance FROM rw_run AS r LEFT JOIN rw_qrels AS j ON r.query_id = j.query_id AND r.doc_id = j.doc_id),
    ranked0 AS (SELECT query_id, relevance, score AS score, cost, rnk0 AS rnk, sum(rw_rel_step(relevance, 1.0)) OVER w AS s0 FROM (SELECT *, row_number() OVER (PARTITION BY query_id ORDER BY score DESC, CAST(doc_id AS STRING) DESC) AS rnk0, cume_dist() OVER (PARTITION BY query_id ORDER BY score DESC, CAST(doc_id AS STRING) DESC) AS last0 FROM joined) WHERE relevance IS NOT NULL OR rnk0 = 1 OR last0 = 1.0 WINDOW w AS (PARTITION BY query_id ORDER BY rnk0 ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)),
    rows0 AS (SELECT * FROM ranked0 AS r JOIN qs USING (query_id)),
    ag0 AS (SELECT query_id, rw_count(rnk) AS r0_0, rw_relret(relevance, rnk, 1.0, NULL) AS r0_1, rw_ap_sum(relevance, rnk, s0, 1.0, NULL) AS r0_2, rw_first_rel(relevance, rnk, 1.0, NULL) AS r0_3, rw_relret_at_nrel(relevance, rnk, q0, 1.0, 1.0) AS r0_4, rw_dcg_gain(rw_gain(relevance, 'linear'), rnk, NULL, 'log2', 2.0) AS r0_5, rw_dcg_gain(rw_gain(relevance, 'linear'), rnk, k, 'log2', 2.0) AS r0_6, rw_relret(relevance, rnk, 1.0, k) AS r0_7 FROM rows0 GROUP BY query_id)
    SELECT query_id AS "query_id", CAST(coalesce(ag0.r0_0, 0.0) AS DOUBLE) AS "NumRet", CAST(qs.q0 AS DOUBLE) AS "NumRel", CAST(coalesce(ag0.r0_1, 0.0) AS DOUBLE) AS "NumRelRet", CAST(rw_div0(coalesce(ag0.r0_2, 0.0), qs.q0) AS DOUBLE) AS "AP", CAST(rw_recip0(ag0.r0_3) AS DOUBLE) AS "RR", CAST(rw_div0(coalesce(ag0.r0_4, 0.0), qs.q0) AS DOUBLE) AS "Rprec", CAST(rw_div0(coalesce(ag0.r0_5, 0.0), qs.q1) AS DOUBLE) AS "nDCG", CAST(rw_div0(coalesce(ag0.r0_6, 0.0), qs.q2) AS DOUBLE) AS "nDCG@k", CAST(rw_div(coalesce(ag0.r0_7, 0.0), k) AS DOUBLE) AS "P@k", CAST(rw_div0(coalesce(ag0.r0_7, 0.0), qs.q0) AS DOUBLE) AS "R@k", CAST(rw_positive(coalesce(ag0.r0_7, 0.0)) AS DOUBLE) AS "Success@k"
    FROM qs AS qs JOIN ag0 USING (query_id)
    ORDER BY 1;
-- end generated: rw_evaluate

-- ndeval's diversity measures over subtopic qrels (query_id, subtopic, doc_id, relevance), at
-- ndeval's defaults (alpha = beta = 0.5; ties as trec_eval, ndeval -traditional), with cutoff k
-- (written by rankwise/_sql/generate.py):
--   SELECT * FROM rw_ndeval('subtopic_qrels', 'run');            -- k = 20
-- Columns: query_id, "alpha-nDCG@k", "nERR-IA@k", NRBP, nNRBP, "MAP-IA", "P-IA@k", "strec@k".
-- The inputs are checked first (a NULL subtopic, a document judged twice for one subtopic, ...);
-- checks := false skips the checks.
-- generated: rw_ndeval
CREATE OR REPLACE TEMP MACRO rw_ndeval(qrels_table, run_table, k := 20, checks := true) AS TABLE
    WITH RECURSIVE rw_run AS (SELECT query_id, doc_id, score::DOUBLE AS score FROM query_table(run_table) WHERE NOT checks OR (rw_check_positive('k', k) AND (SELECT ok FROM rw_check_run(run_table)))),
    rw_subtopics AS (SELECT query_id, CAST(subtopic AS VARCHAR) AS subtopic, doc_id, relevance::DOUBLE AS relevance FROM query_table(qrels_table) WHERE NOT checks OR (SELECT ok FROM rw_check_subtopics(qrels_table))),
    rw_qrels AS (SELECT query_id, doc_id, max(relevance) AS relevance FROM rw_subtopics GROUP BY query_id, doc_id),
    qj AS (SELECT * FROM rw_ideal_order('rw_qrels')),
    qs AS (SELECT query_id, count(*) AS n_judged FROM qj GROUP BY query_id),
    present AS (SELECT DISTINCT query_id FROM rw_run),
    base AS (SELECT qs.* FROM qs SEMI JOIN present USING (query_id)),
    joined AS (SELECT r.query_id, r.doc_id, r.score, CAST(1.0 AS DOUBLE) AS cost, j.relevance FROM rw_run AS r LEFT JOIN rw_qrels AS j ON r.query_id = j.query_id AND r.doc_id = j.doc_id),
    sj AS (SELECT * FROM rw_subtopics AS s),
    rdocs0 AS (SELECT query_id, doc_id, row_number() OVER (PARTITION BY query_id ORDER BY rnk0) AS rnk FROM (SELECT query_id, doc_id, relevance, row_number() OVER (PARTITION BY query_id ORDER BY score DESC, CAST(doc_id AS STRING) DESC) AS rnk0 FROM joined) AS rd WHERE true),
    sp0 AS (SELECT query_id, doc_id, subtopic, count(*) OVER (PARTITION BY query_id, subtopic) AS nsub FROM sj WHERE relevance >= 1.0),
    ia0 AS (SELECT query_id, rw_intent_gain(rnk, cov, 1.0, k, 0.5, 'log2', 0.0) AS i0, rw_intent_gain(rnk, cov, 1.0, k, 0.5, 'rank', 0.0) AS i1, rw_intent_gain(rnk, cov, 1.0, NULL, 0.5, 'geometric', 0.5) AS i2, rw_intent_ap_sum(rnk, cov, nsub, 1.0) AS i3, rw_intent_hits(rnk, 1.0, k) AS i4, rw_intent_new(rnk, cov, 1.0, k) AS i5 FROM (SELECT p.query_id, p.subtopic, p.nsub, r.rnk, row_number() OVER (PARTITION BY p.query_id, p.subtopic ORDER BY r.rnk) - 1 AS cov FROM rdocs0 AS r JOIN sp0 AS p ON r.query_id = p.query_id AND r.doc_id = p.doc_id) AS x GROUP BY query_id),
    gd1 AS (SELECT query_id, array_agg(struct_pack(t := dtext, s := subs)) AS docs, max(ns) AS nsubs FROM (SELECT query_id, dtext, array_agg(si) AS subs, max(max(si)) OVER (PARTITION BY query_id) AS ns FROM (SELECT query_id, CAST(doc_id AS VARCHAR) AS dtext, dense_rank() OVER (PARTITION BY query_id ORDER BY subtopic) AS si FROM sp0) AS x GROUP BY query_id, dtext) AS d GROUP BY query_id),
    gi1(query_id, it, cnt, placed, covs) AS (SELECT query_id, CAST(0 AS BIGINT), list_transform(generate_series(1, nsubs), lambda j: CAST(0 AS BIGINT)), list_transform(generate_series(1, len(docs)), lambda i: false), list_transform(generate_series(1, 1), lambda j: CAST(0 AS BIGINT)) FROM gd1 UNION ALL SELECT query_id, it + 1, list_transform(generate_series(1, len(cnt)), lambda j: list_extract(cnt, j) + CASE WHEN array_contains(list_extract(docs, bi).s, j) THEN 1 ELSE 0 END), list_transform(generate_series(1, len(placed)), lambda i: list_extract(placed, i) OR i = bi), list_transform(list_extract(docs, bi).s, lambda x: list_extract(cnt, x)) FROM (SELECT *, list_max(filter(generate_series(1, len(docs)), lambda i: list_extract(gs, i) = gmax AND list_extract(docs, i).t = tmax)) AS bi FROM (SELECT *, list_max(list_transform(filter(generate_series(1, len(docs)), lambda i: list_extract(gs, i) = gmax), lambda i: list_extract(docs, i).t)) AS tmax FROM (SELECT *, list_max(gs) AS gmax FROM (SELECT g.query_id, g.it, g.cnt, g.placed, d.docs, list_transform(generate_series(1, len(d.docs)), lambda i: CASE WHEN list_extract(g.placed, i) THEN CAST(-1 AS DOUBLE) ELSE round(list_sum(list_transform(list_extract(d.docs, i).s, lambda x: pow(0.5, list_extract(g.cnt, x)))), 12) END) AS gs FROM gi1 AS g JOIN gd1 AS d ON g.query_id = d.query_id WHERE g.it < len(d.docs)) AS ga) AS gb) AS gc) AS ge),
    ia1 AS (SELECT query_id, rw_ideal_intent_gain(rnk, cov, 1.0, k, 0.5, 'log2', 0.0) AS i0, rw_ideal_intent_gain(rnk, cov, 1.0, k, 0.5, 'rank', 0.0) AS i1, rw_ideal_intent_gain(rnk, cov, 1.0, NULL, 0.5, 'geometric', 0.5) AS i2 FROM (SELECT query_id, it AS rnk, unnest(covs) AS cov FROM gi1 WHERE it > 0) AS x GROUP BY query_id),
    ia2 AS (SELECT query_id, rw_subtopics(subtopic, 1.0) AS i0 FROM sp0 AS x GROUP BY query_id)
    SELECT query_id AS "query_id", CAST(rw_div0(coalesce(ia0.i0, 0.0), coalesce(ia1.i0, 0.0)) AS DOUBLE) AS "alpha-nDCG@k", CAST(rw_div0(coalesce(ia0.i1, 0.0), coalesce(ia1.i1, 0.0)) AS DOUBLE) AS "nERR-IA@k", CAST(rw_mul(0.75, rw_div0(coalesce(ia0.i2, 0.0), coalesce(ia2.i0, 0.0))) AS DOUBLE) AS "NRBP", CAST(rw_div0(coalesce(ia0.i2, 0.0), coalesce(ia1.i2, 0.0)) AS DOUBLE) AS "nNRBP", CAST(rw_div0(coalesce(ia0.i3, 0.0), coalesce(ia2.i0, 0.0)) AS DOUBLE) AS "MAP-IA", CAST(rw_div0(coalesce(ia0.i4, 0.0), rw_mul(coalesce(ia2.i0, 0.0), k)) AS DOUBLE) AS "P-IA@k", CAST(rw_div0(coalesce(ia0.i5, 0.0), coalesce(ia2.i0, 0.0)) AS DOUBLE) AS "strec@k"
    FROM base AS qs LEFT JOIN ia0 USING (query_id) LEFT JOIN ia1 USING (query_id) LEFT JOIN ia2 USING (query_id)
    ORDER BY 1;
-- end generated: rw_ndeval

-- The popularity family (beyond accuracy) from a table of training interactions (one row per
-- (user, item) interaction: query_id the user, doc_id the item), at rankwise's defaults, with
-- cutoff k (written by rankwise/_sql/generate.py):
--   SELECT * FROM rw_popularity('qrels', 'run', 'train');            -- k = 10
-- Columns: query_id, "MIUF@k", "Surprisal@k", "ARP@k", "ARP(popularity='users')@k", "APLT@k",
-- "ACLT@k", "TailPercentage@k", "MeanPopRank@k", "UnseenShare@k", "EPC@k", "EFD@k". The inputs are checked first (checks := false skips it).
-- generated: rw_popularity
CREATE OR REPLACE TEMP MACRO rw_popularity(qrels_table, run_table, train_table, k := 10, checks := true) AS TABLE
    WITH rw_run AS (SELECT query_id, doc_id, score::DOUBLE AS score FROM query_table(run_table) WHERE NOT checks OR (rw_check_positive('k', k) AND (SELECT ok FROM rw_check_run(run_table)))),
    rw_qrels AS (SELECT query_id, doc_id, relevance::DOUBLE AS relevance FROM query_table(qrels_table) WHERE NOT checks OR (SELECT ok FROM rw_check_qrels(qrels_table))),
    rw_train AS (SELECT query_id, doc_id FROM query_table(train_table) WHERE NOT checks OR (SELECT rw_train_ok(count(*), count(*) - count(query_id), count(*) - count(doc_id), 'query_id', 'doc_id') FROM query_table(train_table))),
    qj AS (SELECT * FROM rw_ideal_order(qrels_table)),
    qs AS (SELECT query_id, count(*) AS n_judged FROM qj GROUP BY query_id),
    rw_train_items AS (SELECT doc_id, iusers, irows, coalesce(sum(iusers) OVER (ORDER BY iusers DESC, doc_id ASC ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0.0) AS ibefore, CAST(row_number() OVER (ORDER BY irows ASC, doc_id ASC) AS DOUBLE) AS iasc, (rank() OVER (ORDER BY iusers) + (count(*) OVER (PARTITION BY iusers) - 1) / 2.0) / count(*) OVER () AS iqusers, (rank() OVER (ORDER BY irows) + (count(*) OVER (PARTITION BY irows) - 1) / 2.0) / count(*) OVER () AS iqrows, CAST(dense_rank() OVER (ORDER BY irows DESC) AS DOUBLE) AS idense FROM (SELECT doc_id, CAST(count(DISTINCT query_id) AS DOUBLE) AS iusers, CAST(count(*) AS DOUBLE) AS irows FROM rw_train GROUP BY doc_id) AS per_item),
    rw_train_totals AS (SELECT (SELECT CAST(count(DISTINCT query_id) AS DOUBLE) FROM rw_train) AS nusers, sum(irows) AS nrows, sum(iusers) AS npairs, min(iusers) AS minusers, CAST(count(*) AS DOUBLE) AS nitems FROM rw_train_items),
    rw_train_seen AS (SELECT DISTINCT query_id, doc_id FROM rw_train),
    joined AS (SELECT r.query_id, r.doc_id, r.score, CAST(1.0 AS DOUBLE) AS cost, j.relevance, coalesce(ti.iusers, 0.0) AS iusers, coalesce(ti.irows, 0.0) AS irows, coalesce(ti.ibefore, 0.0) AS ibefore, coalesce(ti.iasc, 0.0) AS iasc, coalesce(ti.iqusers, 0.0) AS iqusers, coalesce(ti.iqrows, 0.0) AS iqrows, coalesce(ti.idense, 0.0) AS idense, tt.nusers, tt.nrows, tt.npairs, tt.minusers, tt.nitems, ts.query_id IS NOT NULL AS seen FROM rw_run AS r LEFT JOIN rw_qrels AS j ON r.query_id = j.query_id AND r.doc_id = j.doc_id LEFT JOIN rw_train_items AS ti ON r.doc_id = ti.doc_id LEFT JOIN rw_train_seen AS ts ON r.query_id = ts.query_id AND r.doc_id = ts.doc_id CROSS JOIN rw_train_totals AS tt),
    ranked0 AS (SELECT query_id, iusers, irows, ibefore, iasc, iqusers, iqrows, nusers, nrows, npairs, minusers, nitems, seen, idense, relevance, score AS score, cost, row_number() OVER w AS rnk FROM joined WINDOW w AS (PARTITION BY query_id ORDER BY score DESC, CAST(doc_id AS STRING) DESC ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)),
    rows0 AS (SELECT * FROM ranked0 AS r JOIN qs USING (query_id)),
    ag0 AS (SELECT query_id, rw_inv_user_freq_sum(rnk, iusers, nusers, k) AS r0_0, rw_count(rnk) AS r0_1, rw_surprisal_sum(rnk, iusers, nusers, k) AS r0_2, rw_popularity_sum(rnk, irows, iusers, k, 'interactions') AS r0_3, rw_popularity_sum(rnk, irows, iusers, k, 'users') AS r0_4, rw_long_tail_sum(rnk, iusers, ibefore, npairs, k, 0.8) AS r0_5, rw_tail_ratio_sum(rnk, irows, iasc, nitems, k, 0.1) AS r0_6, rw_pop_quantile_sum(rnk, iqusers, iqrows, k, 'users') AS r0_7, rw_unseen_sum(rnk, seen, k) AS r0_8, rw_epc_sum(relevance, rnk, iusers, nusers, 1.0, k) AS r0_9, rw_discount_sum(rnk, k) AS r0_10, rw_efd_sum(relevance, rnk, iusers, npairs, minusers, 1.0, k) AS r0_11 FROM rows0 GROUP BY query_id)
    SELECT query_id AS "query_id", CAST(rw_div_null(coalesce(ag0.r0_0, 0.0), rw_least(k, coalesce(ag0.r0_1, 0.0))) AS DOUBLE) AS "MIUF@k", CAST(rw_div_null(ag0.r0_2, k) AS DOUBLE) AS "Surprisal@k", CAST(rw_div_null(coalesce(ag0.r0_3, 0.0), rw_least(k, coalesce(ag0.r0_1, 0.0))) AS DOUBLE) AS "ARP@k", CAST(rw_div_null(coalesce(ag0.r0_4, 0.0), rw_least(k, coalesce(ag0.r0_1, 0.0))) AS DOUBLE) AS "ARP(popularity='users')@k", CAST(rw_div_null(ag0.r0_5, rw_least(k, coalesce(ag0.r0_1, 0.0))) AS DOUBLE) AS "APLT@k", CAST(ag0.r0_5 AS DOUBLE) AS "ACLT@k", CAST(rw_div_null(ag0.r0_6, rw_least(k, coalesce(ag0.r0_1, 0.0))) AS DOUBLE) AS "TailPercentage@k", CAST(rw_div_null(coalesce(ag0.r0_7, 0.0), rw_least(k, coalesce(ag0.r0_1, 0.0))) AS DOUBLE) AS "MeanPopRank@k", CAST(rw_div_null(coalesce(ag0.r0_8, 0.0), rw_least(k, coalesce(ag0.r0_1, 0.0))) AS DOUBLE) AS "UnseenShare@k", CAST(rw_div_null(coalesce(ag0.r0_9, 0.0), coalesce(ag0.r0_10, 0.0)) AS DOUBLE) AS "EPC@k", CAST(rw_div_null(coalesce(ag0.r0_11, 0.0), coalesce(ag0.r0_10, 0.0)) AS DOUBLE) AS "EFD@k"
    FROM qs AS qs JOIN ag0 USING (query_id)
    ORDER BY 1;
-- end generated: rw_popularity

-- The feature-diversity family (beyond accuracy) from a table of item features (one row per item: doc_id the
-- item, features its vector, a list of numbers of one length), at rankwise's defaults, with cutoff k (written by
-- rankwise/_sql/generate.py):
--   SELECT * FROM rw_feature_diversity('qrels', 'run', 'item_features');            -- k = 10
-- Columns: query_id, "ILD@k" (cosine), "ILD(distance='hamming')@k", "ILD(distance='jaccard')@k", "ILS@k". The inputs
-- are checked first (checks := false skips it).
-- generated: rw_feature_diversity
CREATE OR REPLACE TEMP MACRO rw_feature_diversity(qrels_table, run_table, features_table, k := 10, checks := true) AS TABLE
    WITH rw_run AS (SELECT query_id, doc_id, score::DOUBLE AS score FROM query_table(run_table) WHERE NOT checks OR (rw_check_positive('k', k) AND (SELECT ok FROM rw_check_run(run_table)))),
    rw_qrels AS (SELECT query_id, doc_id, relevance::DOUBLE AS relevance FROM query_table(qrels_table) WHERE NOT checks OR (SELECT ok FROM rw_check_qrels(qrels_table))),
    rw_features_input AS (SELECT doc_id AS doc_id, unnest(range(len(features))) AS feature, unnest(features) AS value FROM query_table(features_table)),
    rw_features_sizes AS (SELECT doc_id AS doc_id, CAST(coalesce(len(features), 0) AS DOUBLE) AS n FROM query_table(features_table)),
    rw_features_check AS (SELECT rw_features_ok((SELECT count(*) FROM rw_features_sizes), (SELECT count(*) - count(doc_id) FROM rw_features_sizes), (SELECT count(*) FROM (SELECT doc_id FROM rw_features_sizes GROUP BY doc_id HAVING count(*) > 1) AS twice), (SELECT count(*) FROM rw_features_sizes WHERE n = 0), (SELECT count(DISTINCT n) FROM rw_features_sizes), (SELECT count(*) FROM rw_features_input WHERE value IS NULL OR isnan(value)), (SELECT count(DISTINCT r.doc_id) FROM rw_run AS r LEFT JOIN (SELECT DISTINCT doc_id FROM rw_features_sizes) AS f ON r.doc_id = f.doc_id WHERE f.doc_id IS NULL), 'doc_id') AS ok),
    rw_features AS (SELECT * FROM rw_features_input WHERE NOT checks OR (SELECT ok FROM rw_features_check)),
    qj AS (SELECT * FROM rw_ideal_order(qrels_table)),
    qs AS (SELECT query_id, count(*) AS n_judged FROM qj GROUP BY query_id),
    joined AS (SELECT r.query_id, r.doc_id, r.score, CAST(1.0 AS DOUBLE) AS cost, j.relevance FROM rw_run AS r LEFT JOIN rw_qrels AS j ON r.query_id = j.query_id AND r.doc_id = j.doc_id),
    ranked0 AS (SELECT query_id, doc_id, relevance, score AS score, cost, row_number() OVER w AS rnk FROM joined WINDOW w AS (PARTITION BY query_id ORDER BY score DESC, CAST(doc_id AS STRING) DESC ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)),
    rw_top0 AS (SELECT query_id, rnk, doc_id FROM ranked0 WHERE rnk <= k),
    rw_vectors0 AS (SELECT doc_id, v, list_dot_product(v, v) AS n, z, list_sum(z) AS nz FROM (SELECT doc_id, v, list_transform(v, lambda x: CASE WHEN x <> 0 THEN 1.0 ELSE 0.0 END) AS z FROM (SELECT doc_id, list_transform(array_sort(array_agg(struct_pack(f := feature, x := value))), lambda e: e.x) AS v FROM rw_features WHERE doc_id IN (SELECT doc_id FROM rw_top0) GROUP BY doc_id) AS fv) AS fz),
    rw_pairs0 AS (SELECT a.query_id, a.rnk, list_dot_product(fa.v, fb.v) AS dot, fa.n AS na, fb.n AS nb, list_sum(list_transform(generate_series(1, len(fa.v)), lambda i: CASE WHEN list_extract(fa.v, i) <> list_extract(fb.v, i) THEN 1.0 ELSE 0.0 END)) AS differ, list_dot_product(fa.z, fb.z) AS both_set, fa.nz + fb.nz AS nonzero FROM rw_top0 AS a JOIN rw_top0 AS b ON a.query_id = b.query_id AND b.rnk < a.rnk LEFT JOIN rw_vectors0 AS fa ON fa.doc_id = a.doc_id LEFT JOIN rw_vectors0 AS fb ON fb.doc_id = b.doc_id),
    rw_pair_sums0 AS (SELECT query_id AS pq, rnk AS pr, sum(1.0 - CASE WHEN na * nb > 0 THEN dot / sqrt(na * nb) ELSE 0.0 END) AS pcos, sum(differ) AS pham, sum(CASE WHEN nonzero - both_set > 0 THEN 1.0 - both_set / (nonzero - both_set) ELSE 0.0 END) AS pjac FROM rw_pairs0 GROUP BY query_id, rnk),
    rows0 AS (SELECT *, CAST(coalesce(ps.pcos, 0.0) AS DOUBLE) AS dcosine, CAST(coalesce(ps.pham, 0.0) AS DOUBLE) AS dhamming, CAST(coalesce(ps.pjac, 0.0) AS DOUBLE) AS djaccard FROM ranked0 AS r JOIN qs USING (query_id) LEFT JOIN rw_pair_sums0 AS ps ON ps.pq = r.query_id AND ps.pr = r.rnk),
    ag0 AS (SELECT query_id, rw_pair_distance_sum(rnk, dcosine, dhamming, djaccard, k, 'cosine') AS r0_0, rw_count(rnk) AS r0_1, rw_pair_distance_sum(rnk, dcosine, dhamming, djaccard, k, 'hamming') AS r0_2, rw_pair_distance_sum(rnk, dcosine, dhamming, djaccard, k, 'jaccard') AS r0_3 FROM rows0 GROUP BY query_id)
    SELECT query_id AS "query_id", CAST(rw_div_null(rw_div0(coalesce(ag0.r0_0, 0.0), rw_div(rw_mul(rw_least(k, coalesce(ag0.r0_1, 0.0)), rw_sub(rw_least(k, coalesce(ag0.r0_1, 0.0)), 1.0)), 2.0)), rw_positive(coalesce(ag0.r0_1, 0.0))) AS DOUBLE) AS "ILD@k", CAST(rw_div_null(rw_div0(coalesce(ag0.r0_2, 0.0), rw_div(rw_mul(rw_least(k, coalesce(ag0.r0_1, 0.0)), rw_sub(rw_least(k, coalesce(ag0.r0_1, 0.0)), 1.0)), 2.0)), rw_positive(coalesce(ag0.r0_1, 0.0))) AS DOUBLE) AS "ILD(distance='hamming')@k", CAST(rw_div_null(rw_div0(coalesce(ag0.r0_3, 0.0), rw_div(rw_mul(rw_least(k, coalesce(ag0.r0_1, 0.0)), rw_sub(rw_least(k, coalesce(ag0.r0_1, 0.0)), 1.0)), 2.0)), rw_positive(coalesce(ag0.r0_1, 0.0))) AS DOUBLE) AS "ILD(distance='jaccard')@k", CAST(rw_div_null(rw_sub(rw_div(rw_mul(rw_least(k, coalesce(ag0.r0_1, 0.0)), rw_sub(rw_least(k, coalesce(ag0.r0_1, 0.0)), 1.0)), 2.0), coalesce(ag0.r0_0, 0.0)), rw_div(rw_mul(rw_least(k, coalesce(ag0.r0_1, 0.0)), rw_sub(rw_least(k, coalesce(ag0.r0_1, 0.0)), 1.0)), 2.0)) AS DOUBLE) AS "ILS@k"
    FROM qs AS qs JOIN ag0 USING (query_id)
    ORDER BY 1;
-- end generated: rw_feature_diversity

-- The base-run family (beyond accuracy) from a table of the base run (query_id, doc_id, score, as the run), ranked as
-- the run is, at rankwise's defaults, with cutoff k (written by rankwise/_sql/generate.py):
--   SELECT * FROM rw_unexpectedness('qrels', 'run', 'base_run');            -- k = 10
-- Columns: query_id, "Unexpectedness@k". The inputs are checked first, the base run as a run (checks := false
-- skips it).
-- generated: rw_unexpectedness
CREATE OR REPLACE TEMP MACRO rw_unexpectedness(qrels_table, run_table, base_run_table, k := 10, checks := true) AS TABLE
    WITH rw_run AS (SELECT query_id, doc_id, score::DOUBLE AS score FROM query_table(run_table) WHERE NOT checks OR (rw_check_positive('k', k) AND (SELECT ok FROM rw_check_run(run_table)))),
    rw_qrels AS (SELECT query_id, doc_id, relevance::DOUBLE AS relevance FROM query_table(qrels_table) WHERE NOT checks OR (SELECT ok FROM rw_check_qrels(qrels_table))),
    rw_base_run AS (SELECT query_id, doc_id, score::DOUBLE AS score FROM query_table(base_run_table) WHERE NOT checks OR (SELECT ok FROM rw_check_run(base_run_table, subject := 'base run'))),
    qj AS (SELECT * FROM rw_ideal_order(qrels_table)),
    qs AS (SELECT query_id, count(*) AS n_judged FROM qj GROUP BY query_id),
    rw_base_joined AS (SELECT b.query_id, b.doc_id, b.score, j.relevance FROM rw_base_run AS b LEFT JOIN rw_qrels AS j ON b.query_id = j.query_id AND b.doc_id = j.doc_id),
    rw_base_ranked AS (SELECT * FROM (SELECT query_id, doc_id, CAST(row_number() OVER (PARTITION BY query_id ORDER BY score DESC, CAST(doc_id AS STRING) DESC) AS DOUBLE) AS brank FROM rw_base_joined) AS b),
    rw_base_users AS (SELECT DISTINCT query_id FROM rw_base_run),
    joined AS (SELECT r.query_id, r.doc_id, r.score, CAST(1.0 AS DOUBLE) AS cost, j.relevance, bb.brank, bu.query_id IS NOT NULL AS blisted FROM rw_run AS r LEFT JOIN rw_qrels AS j ON r.query_id = j.query_id AND r.doc_id = j.doc_id LEFT JOIN rw_base_ranked AS bb ON r.query_id = bb.query_id AND r.doc_id = bb.doc_id LEFT JOIN rw_base_users AS bu ON r.query_id = bu.query_id),
    ranked0 AS (SELECT query_id, brank, blisted, relevance, score AS score, cost, row_number() OVER w AS rnk FROM joined WINDOW w AS (PARTITION BY query_id ORDER BY score DESC, CAST(doc_id AS STRING) DESC ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)),
    rows0 AS (SELECT * FROM ranked0 AS r JOIN qs USING (query_id)),
    ag0 AS (SELECT query_id, rw_base_overlap_sum(rnk, brank, blisted, k) AS r0_0 FROM rows0 GROUP BY query_id)
    SELECT query_id AS "query_id", CAST(rw_sub(1.0, rw_div(ag0.r0_0, k)) AS DOUBLE) AS "Unexpectedness@k"
    FROM qs AS qs JOIN ag0 USING (query_id)
    ORDER BY 1;
-- end generated: rw_unexpectedness

-- rw_coverage(qrels_table, run_table, catalog_table, k := 10, checks := true): the set-level metrics, one
-- row: the catalog's coverage, the Gini index and the entropy of the items' exposure in the lists within k
-- (rankwise.metrics.families.catalog; catalog_table: the catalog's items in doc_id).
-- generated: rw_coverage
CREATE OR REPLACE TEMP MACRO rw_coverage(qrels_table, run_table, catalog_table, k := 10, checks := true) AS TABLE
    WITH rw_run AS (SELECT query_id, doc_id, score::DOUBLE AS score FROM query_table(run_table) WHERE NOT checks OR (rw_check_positive('k', k) AND (SELECT ok FROM rw_check_run(run_table)))),
    rw_qrels AS (SELECT query_id, doc_id, relevance::DOUBLE AS relevance FROM query_table(qrels_table) WHERE NOT checks OR (SELECT ok FROM rw_check_qrels(qrels_table))),
    rw_catalog AS (SELECT doc_id FROM query_table(catalog_table) WHERE NOT checks OR (SELECT rw_catalog_ok(count(*), count(*) - count(doc_id)) FROM query_table(catalog_table))),
    joined AS (SELECT r.query_id, r.doc_id, r.score, CAST(1.0 AS DOUBLE) AS cost, j.relevance FROM rw_run AS r LEFT JOIN rw_qrels AS j ON r.query_id = j.query_id AND r.doc_id = j.doc_id),
    judged AS (SELECT DISTINCT query_id FROM rw_qrels),
    ranked0 AS (SELECT query_id, doc_id, relevance, score AS score, cost, row_number() OVER w AS rnk FROM joined WINDOW w AS (PARTITION BY query_id ORDER BY score DESC, CAST(doc_id AS STRING) DESC ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)),
    scored0 AS (SELECT r.query_id, r.doc_id, r.rnk, r.relevance, 0 AS grp, 1.0 AS times FROM ranked0 AS r WHERE r.query_id IN (SELECT query_id FROM judged)),
    users0 AS (SELECT DISTINCT grp, query_id, times FROM scored0),
    e0 AS (SELECT grp, doc_id, sum(times * 1.0) AS expo, CAST(sum(times) AS DOUBLE) AS lists FROM scored0 WHERE rnk <= k GROUP BY grp, doc_id HAVING sum(times * 1.0) > 0),
    x0 AS (SELECT e.grp, e.doc_id, e.expo, e.lists, CAST(row_number() OVER (PARTITION BY e.grp ORDER BY e.expo, e.doc_id) AS DOUBLE) AS pos, c.doc_id IS NOT NULL AS incat, (SELECT CAST(count(*) AS DOUBLE) FROM (SELECT DISTINCT doc_id FROM rw_catalog) AS ci) AS ncat FROM e0 AS e LEFT JOIN (SELECT DISTINCT doc_id FROM rw_catalog) AS c ON c.doc_id = e.doc_id),
    e1 AS (SELECT grp, doc_id, sum(times * 1.0) AS expo, CAST(sum(times) AS DOUBLE) AS lists FROM scored0 WHERE rnk <= k GROUP BY grp, doc_id HAVING sum(times * 1.0) > 0),
    x1 AS (SELECT e.grp, e.doc_id, e.expo, e.lists, CAST(row_number() OVER (PARTITION BY e.grp ORDER BY e.expo, e.doc_id) AS DOUBLE) AS pos, TRUE AS incat, CAST(count(*) OVER (PARTITION BY e.grp) AS DOUBLE) AS ncat FROM e1 AS e),
    e2 AS (SELECT grp, doc_id, sum(times * power(0.85, rnk - 1)) AS expo, CAST(sum(times) AS DOUBLE) AS lists FROM scored0 WHERE rnk <= k GROUP BY grp, doc_id HAVING sum(times * power(0.85, rnk - 1)) > 0),
    x2 AS (SELECT e.grp, e.doc_id, e.expo, e.lists, CAST(row_number() OVER (PARTITION BY e.grp ORDER BY e.expo, e.doc_id) AS DOUBLE) AS pos, c.doc_id IS NOT NULL AS incat, (SELECT CAST(count(*) AS DOUBLE) FROM (SELECT DISTINCT doc_id FROM rw_catalog) AS ci) AS ncat FROM e2 AS e LEFT JOIN (SELECT DISTINCT doc_id FROM rw_catalog) AS c ON c.doc_id = e.doc_id),
    a0 AS (SELECT grp, rw_items_listed(expo, incat) AS s0, rw_catalog_items(ncat) AS s1, rw_exposure_gini(expo, pos, incat, ncat) AS s2 FROM x0 GROUP BY grp),
    a1 AS (SELECT grp, rw_items_listed(expo, incat) AS s0, rw_exposure_gini(expo, pos, incat, ncat) AS s1, rw_exposure_entropy(expo, 2.0) AS s2, rw_exposure_entropy(expo, 2.718281828459045) AS s3 FROM x1 GROUP BY grp),
    a2 AS (SELECT grp, rw_exposure_gini(expo, pos, incat, ncat) AS s0 FROM x2 GROUP BY grp)
    SELECT CAST(rw_div_null(a0.s0, a0.s1) AS DOUBLE) AS "CatalogCoverage@k", CAST(a1.s0 AS DOUBLE) AS "CatalogCoverage(count=True)@k", CAST(a0.s2 AS DOUBLE) AS "Gini@k", CAST(a2.s0 AS DOUBLE) AS "Gini(weight='geometric')@k", CAST(a1.s1 AS DOUBLE) AS "Gini(catalog='listed')@k", CAST(a1.s2 AS DOUBLE) AS "Entropy@k", CAST(rw_div_null(a1.s3, a1.s0) AS DOUBLE) AS "Entropy(base='e', per_item=True)@k"
    FROM (SELECT 0 AS grp) AS g LEFT JOIN a0 USING (grp) LEFT JOIN a1 USING (grp) LEFT JOIN a2 USING (grp);
-- end generated: rw_coverage

-- The serendipity family from a table of training interactions and a table of the catalog's items.
-- generated: rw_serendipity
CREATE OR REPLACE TEMP MACRO rw_serendipity(qrels_table, run_table, train_table, catalog_table, k := 10, checks := true) AS TABLE
    WITH rw_run AS (SELECT query_id, doc_id, score::DOUBLE AS score FROM query_table(run_table) WHERE NOT checks OR (rw_check_positive('k', k) AND (SELECT ok FROM rw_check_run(run_table)))),
    rw_qrels AS (SELECT query_id, doc_id, relevance::DOUBLE AS relevance FROM query_table(qrels_table) WHERE NOT checks OR (SELECT ok FROM rw_check_qrels(qrels_table))),
    rw_train AS (SELECT query_id, doc_id FROM query_table(train_table) WHERE NOT checks OR (SELECT rw_train_ok(count(*), count(*) - count(query_id), count(*) - count(doc_id), 'query_id', 'doc_id') FROM query_table(train_table))),
    rw_catalog AS (SELECT doc_id FROM query_table(catalog_table) WHERE NOT checks OR (SELECT rw_catalog_ok(count(*), count(*) - count(doc_id)) FROM query_table(catalog_table))),
    qj AS (SELECT * FROM rw_ideal_order(qrels_table)),
    qs AS (SELECT query_id, count(*) AS n_judged FROM qj GROUP BY query_id),
    rw_train_items AS (SELECT doc_id, iusers, irows, coalesce(sum(iusers) OVER (ORDER BY iusers DESC, doc_id ASC ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0.0) AS ibefore, CAST(row_number() OVER (ORDER BY irows ASC, doc_id ASC) AS DOUBLE) AS iasc, (rank() OVER (ORDER BY iusers) + (count(*) OVER (PARTITION BY iusers) - 1) / 2.0) / count(*) OVER () AS iqusers, (rank() OVER (ORDER BY irows) + (count(*) OVER (PARTITION BY irows) - 1) / 2.0) / count(*) OVER () AS iqrows, CAST(dense_rank() OVER (ORDER BY irows DESC) AS DOUBLE) AS idense FROM (SELECT doc_id, CAST(count(DISTINCT query_id) AS DOUBLE) AS iusers, CAST(count(*) AS DOUBLE) AS irows FROM rw_train GROUP BY doc_id) AS per_item),
    rw_train_totals AS (SELECT (SELECT CAST(count(DISTINCT query_id) AS DOUBLE) FROM rw_train) AS nusers, sum(irows) AS nrows, sum(iusers) AS npairs, min(iusers) AS minusers, CAST(count(*) AS DOUBLE) AS nitems FROM rw_train_items),
    rw_train_seen AS (SELECT DISTINCT query_id, doc_id FROM rw_train),
    rw_catalog_size AS (SELECT CAST(count(DISTINCT doc_id) AS DOUBLE) AS ncatalog FROM rw_catalog),
    joined AS (SELECT r.query_id, r.doc_id, r.score, CAST(1.0 AS DOUBLE) AS cost, j.relevance, coalesce(ti.iusers, 0.0) AS iusers, coalesce(ti.irows, 0.0) AS irows, coalesce(ti.ibefore, 0.0) AS ibefore, coalesce(ti.iasc, 0.0) AS iasc, coalesce(ti.iqusers, 0.0) AS iqusers, coalesce(ti.iqrows, 0.0) AS iqrows, coalesce(ti.idense, 0.0) AS idense, tt.nusers, tt.nrows, tt.npairs, tt.minusers, tt.nitems, ts.query_id IS NOT NULL AS seen, cs.ncatalog FROM rw_run AS r LEFT JOIN rw_qrels AS j ON r.query_id = j.query_id AND r.doc_id = j.doc_id LEFT JOIN rw_train_items AS ti ON r.doc_id = ti.doc_id LEFT JOIN rw_train_seen AS ts ON r.query_id = ts.query_id AND r.doc_id = ts.doc_id CROSS JOIN rw_train_totals AS tt CROSS JOIN rw_catalog_size AS cs),
    ranked0 AS (SELECT query_id, iusers, irows, ibefore, iasc, iqusers, iqrows, nusers, nrows, npairs, minusers, nitems, seen, idense, ncatalog, relevance, score AS score, cost, row_number() OVER w AS rnk FROM joined WINDOW w AS (PARTITION BY query_id ORDER BY score DESC, CAST(doc_id AS STRING) DESC ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)),
    rows0 AS (SELECT * FROM ranked0 AS r JOIN qs USING (query_id)),
    ag0 AS (SELECT query_id, rw_serendipity_sum(relevance, rnk, idense, ncatalog, 1.0, k, false) AS r0_0, rw_count(rnk) AS r0_1 FROM rows0 GROUP BY query_id)
    SELECT query_id AS "query_id", CAST(rw_div_null(coalesce(ag0.r0_0, 0.0), rw_least(k, coalesce(ag0.r0_1, 0.0))) AS DOUBLE) AS "Serendipity@k"
    FROM qs AS qs JOIN ag0 USING (query_id)
    ORDER BY 1;
-- end generated: rw_serendipity
