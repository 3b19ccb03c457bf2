-- rankwise's category family (rankwise/primitives/categories.py): aggregate macros over the ranked rows (rnk the
-- rank) carrying the item categories' values, each row's in rank order within its query: catnew, how many of its
-- item's categories no item ranked above it has; catcount, how many categories its item has; catent, by how much
-- they raise sum_g h(c_g), c_g the rows ranked down to it with category g; catcountg, catentg, the same with each
-- row weighted by patience^(rnk - 1) (LensKit's GeometricRankWeight(0.85), or another patience's variant of the two
-- columns); catall, the categories of the whole input.
-- An item without a category adds 0 to each.

-- h(s) = (s + eps) log2(s + eps), eps = 1e-6 (LensKit's; rankwise.primitives.categories.EPSILON): a category's
-- term of the entropy, times the total.
CREATE OR REPLACE TEMP MACRO rw_category_h(s) AS ((s + 1e-6) * log2(s + 1e-6))::DOUBLE;

-- patience^(rnk - 1): the rank weight of the rank-biased entropy (LensKit's GeometricRankWeight(patience); its
-- default 0.85 gives catcountg, catentg, another patience their variant: rankwise.primitives.categories.variant).
CREATE OR REPLACE TEMP MACRO rw_category_weight(rnk, patience) AS pow(patience, rnk - 1)::DOUBLE;

-- p log(p / q~) to the base, q~ = (1 - alpha) q + alpha p: a category's term of the miscalibration (Steck's alpha,
-- 0 < alpha < 1); -p log(alpha) where q = 0 (alpha p would round to 0 for the tiniest alpha).
CREATE OR REPLACE TEMP MACRO rw_calibration_term(p, q, alpha, base) AS
    (CASE WHEN q = 0 THEN -p * ln(alpha) ELSE p * ln(p / ((1.0 - alpha) * q + alpha * p)) END / ln(base))::DOUBLE;

-- Σ_{rnk <= k} catnew: the distinct categories of the top k.
CREATE OR REPLACE TEMP MACRO rw_category_count(rnk, catnew, k) AS
    coalesce(sum(CASE WHEN rw_within(rnk, k) THEN catnew ELSE 0.0 END), 0.0)::DOUBLE;

-- log2 Z - (A + G eps log2 eps) / Z, Z = Σ_{rnk <= k} count + G eps, A = Σ_{rnk <= k} ent, G = catall (count,
-- ent: catcountg, catentg when geometric, else catcount, catent): -Σ_g p_g log2 p_g, p_g = (c_g + eps) / Z over
-- the G categories (LensKit's entropy, rank_biased_entropy).
CREATE OR REPLACE TEMP MACRO rw_category_entropy(rnk, catcount, catent, catcountg, catentg, catall, k, geometric) AS
    (log2(coalesce(sum(CASE WHEN rw_within(rnk, k) THEN (CASE WHEN geometric THEN catcountg ELSE catcount END)
                            ELSE 0.0 END), 0.0) + max(catall) * 1e-6)
     - (coalesce(sum(CASE WHEN rw_within(rnk, k) THEN (CASE WHEN geometric THEN catentg ELSE catent END)
                          ELSE 0.0 END), 0.0) + max(catall) * rw_category_h(0.0))
       / (coalesce(sum(CASE WHEN rw_within(rnk, k) THEN (CASE WHEN geometric THEN catcountg ELSE catcount END)
                            ELSE 0.0 END), 0.0) + max(catall) * 1e-6))::DOUBLE;

-- miscal on the deepest row ranked <= k: Steck's miscalibration of the top k (each row's miscal is that of the
-- list cut at its rank; NULL where the user has no categorised training item).
CREATE OR REPLACE TEMP MACRO rw_miscalibration(rnk, miscal, k) AS
    max_by(CASE WHEN rw_within(rnk, k) THEN miscal END, CASE WHEN rw_within(rnk, k) THEN rnk END)::DOUBLE;

-- The item categories' data check (to_sql's categories table): true, or an error naming the fault
-- (rankwise.inputs.categories' words): no row at all, NULL items, NULL categories.
CREATE OR REPLACE TEMP MACRO rw_categories_ok(n, null_items, null_categories, item_name, category_name) AS
    CASE WHEN n = 0 THEN error('rankwise: the item categories (categories=) are empty: no (item, category) row')
         WHEN null_items > 0 THEN error('rankwise: the item categories (categories=) hold ' || CAST(null_items AS VARCHAR)
                                        || ' NULL value(s) in their item column ''' || item_name || '''')
         WHEN null_categories > 0 THEN error('rankwise: the item categories (categories=) hold '
                                             || CAST(null_categories AS VARCHAR) || ' NULL value(s) in their category column '''
                                             || category_name || '''; give an item without a category no row')
         ELSE true END;

-- The category family from a table of the item categories (doc_id, category: a row per pair), every user
-- of the run scored at the cutoff k (rankwise.evaluate with its defaults; rankwise._sql.generate writes it).
-- generated: rw_category_metrics
CREATE OR REPLACE TEMP MACRO rw_category_metrics(qrels_table, run_table, categories_table, k := 10, checks := true) AS TABLE
    WITH rw_run AS (SELECT query_id, doc_id, score::DOUBLE AS score FROM query_table(run_table) WHERE NOT checks OR (rw_check_positive('k', k) AND (SELECT ok FROM rw_check_run(run_table)))),
    rw_qrels AS (SELECT query_id, doc_id, relevance::DOUBLE AS relevance FROM query_table(qrels_table) WHERE NOT checks OR (SELECT ok FROM rw_check_qrels(qrels_table))),
    rw_categories AS (SELECT DISTINCT doc_id, CAST(category AS VARCHAR) AS category FROM query_table(categories_table) WHERE NOT checks OR (SELECT rw_categories_ok(count(*), count(*) - count(doc_id), count(*) - count(category), 'doc_id', 'category') FROM query_table(categories_table))),
    qj AS (SELECT * FROM rw_ideal_order(qrels_table)),
    qs AS (SELECT query_id, count(*) AS n_judged FROM qj GROUP BY query_id),
    joined AS (SELECT r.query_id, r.doc_id, r.score, CAST(1.0 AS DOUBLE) AS cost, j.relevance FROM rw_run AS r LEFT JOIN rw_qrels AS j ON r.query_id = j.query_id AND r.doc_id = j.doc_id),
    ranked0 AS (SELECT query_id, doc_id, relevance, score AS score, cost, row_number() OVER w AS rnk FROM joined WINDOW w AS (PARTITION BY query_id ORDER BY score DESC, CAST(doc_id AS STRING) DESC ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)),
    rw_category_rows0 AS (SELECT r.query_id, r.rnk, c.category, CAST(rw_category_weight(r.rnk, 0.85) AS DOUBLE) AS w FROM (SELECT * FROM ranked0 WHERE rnk <= k) AS r JOIN rw_categories AS c ON r.doc_id = c.doc_id),
    rw_category_runs0 AS (SELECT query_id, rnk, CAST(row_number() OVER (PARTITION BY query_id, category ORDER BY rnk) AS DOUBLE) AS n, w, sum(w) OVER (PARTITION BY query_id, category ORDER BY rnk ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS sw, coalesce(sum(w) OVER (PARTITION BY query_id, category ORDER BY rnk ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0.0) AS sw0 FROM rw_category_rows0),
    rw_category_sums0 AS (SELECT query_id AS cq, rnk AS cr, sum(CASE WHEN n = 1 THEN 1.0 ELSE 0.0 END) AS cnew, CAST(count(*) AS DOUBLE) AS ccount, sum(rw_category_h(n) - rw_category_h(n - 1)) AS cent, sum(w) AS ccountg, sum(rw_category_h(sw) - rw_category_h(sw0)) AS centg FROM rw_category_runs0 GROUP BY query_id, rnk),
    rw_category_all0 AS (SELECT CAST(count(DISTINCT category) AS DOUBLE) AS ncategories FROM rw_categories),
    rows0 AS (SELECT *, CAST(coalesce(cs.cnew, 0.0) AS DOUBLE) AS catnew, CAST(coalesce(cs.ccount, 0.0) AS DOUBLE) AS catcount, CAST(coalesce(cs.cent, 0.0) AS DOUBLE) AS catent, CAST(coalesce(cs.ccountg, 0.0) AS DOUBLE) AS catcountg, CAST(coalesce(cs.centg, 0.0) AS DOUBLE) AS catentg, ca.ncategories AS catall FROM ranked0 AS r JOIN qs USING (query_id) LEFT JOIN rw_category_sums0 AS cs ON cs.cq = r.query_id AND cs.cr = r.rnk CROSS JOIN rw_category_all0 AS ca),
    ag0 AS (SELECT query_id, rw_category_count(rnk, catnew, k) AS r0_0, rw_category_entropy(rnk, catcount, catent, catcountg, catentg, catall, k, false) AS r0_1, rw_category_entropy(rnk, catcount, catent, catcountg, catentg, catall, k, true) AS r0_2 FROM rows0 GROUP BY query_id)
    SELECT query_id AS "query_id", CAST(rw_div(ag0.r0_0, k) AS DOUBLE) AS "CategoryDiversity@k", CAST(ag0.r0_1 AS DOUBLE) AS "CategoryEntropy@k", CAST(ag0.r0_2 AS DOUBLE) AS "CategoryEntropy(rank_weight='geometric')@k"
    FROM qs AS qs JOIN ag0 USING (query_id)
    ORDER BY 1;
-- end generated: rw_category_metrics
