-- rankwise: every SQL macro in one file, in load order, for the DuckDB command line:
--   .read sql/rankwise.sql
-- Written by rankwise/_sql/generate.py (python -m rankwise._sql.generate) from the family
-- files of sql/, each below under its name: edit those, not this one.

-- ==== 00_core.sql ====

-- rankwise core macros: gain, discount, relevance test, cutoff, safe division.
-- Shared by every metric. Load order (file names): 00_core, 05_checks, 10_ranking, 20_primitives,
-- 30_events, 40_diversity, 45_cwl, 90_evaluate; rankwise.sql is all of them in that order.
-- All macros are TEMP, so they install on read-only connections too.

-- Gain of a relevance value, negative relevance kept (nDCG/DCG's negative='gain': CatBoost, XGBoost's
-- linear gain, scikit-learn's dcg_score): 'linear': rel; 'exponential': 2^rel - 1. Unjudged (NULL): 0.
CREATE OR REPLACE TEMP MACRO rw_signed_gain(rel, kind) AS
    CASE
        WHEN rel IS NULL THEN 0.0::DOUBLE
        WHEN kind = 'exponential' THEN pow(2.0, rel::DOUBLE) - 1.0
        WHEN kind = 'binary' THEN CASE WHEN rel > 0 THEN 1.0 ELSE 0.0 END
        ELSE rel::DOUBLE
    END;

-- Gain of a relevance value. 'linear': max(rel, 0); 'exponential': 2^rel - 1 (Burges et al. 2005);
-- 'binary': 1 for a positive relevance.
-- Unjudged (NULL) and non-positive relevance gain 0, as in trec_eval.
CREATE OR REPLACE TEMP MACRO rw_gain(rel, kind) AS
    CASE WHEN rel IS NULL OR rel <= 0 THEN 0.0::DOUBLE ELSE rw_signed_gain(rel, kind) END;

-- Rank discount. 'log2': log2(i + 1); 'jarvelin': max(1, log_b(i)) (Järvelin & Kekäläinen 2002);
-- 'reciprocal': i, the gain divided by the rank (CatBoost's NDCG/DCG denominator=Position).
CREATE OR REPLACE TEMP MACRO rw_discount(rnk, kind, base) AS
    CASE
        WHEN kind = 'jarvelin' THEN greatest(1.0, ln(rnk::DOUBLE) / ln(base::DOUBLE))
        WHEN kind = 'reciprocal' THEN rnk::DOUBLE
        ELSE log2(rnk::DOUBLE + 1.0)
    END;

-- A score as trec_eval 9 holds it: a 32-bit float (rounded to nearest; from the midpoint
-- above the largest float up, +-inf), back as a double.
CREATE OR REPLACE TEMP MACRO rw_float32(s) AS
    CASE WHEN abs(s) >= 3.4028235677973366e38 THEN sign(s) * CAST('inf' AS DOUBLE)
         ELSE CAST(CAST(s AS FLOAT) AS DOUBLE) END;

-- A document is relevant when its relevance >= t; unjudged documents never are.
CREATE OR REPLACE TEMP MACRO rw_is_rel(rel, t) AS coalesce(rel >= t, false);

-- Rank i is inside the cutoff k (k NULL = no cutoff).
CREATE OR REPLACE TEMP MACRO rw_within(rnk, k) AS (k IS NULL OR rnk <= k);

-- ln(n!) of a whole n >= 0 (n < 0 read as 0): Stirling's series of ln Γ(z) at z = n + 17 (its
-- error below 1e-14 there) less ln((n + 1)(n + 2) ... (n + 16)); relative error about 1e-15
-- (the engines have no ln Γ: Spark SQL lacks it); ln C(n, k) of whole 0 <= k <= n.
CREATE OR REPLACE TEMP MACRO rw_ln_gamma_series(z) AS
    (z - 0.5) * ln(z) - z + 0.9189385332046727 + 1.0 / (12.0 * z) - 1.0 / (360.0 * pow(z, 3))
    + 1.0 / (1260.0 * pow(z, 5)) - 1.0 / (1680.0 * pow(z, 7));
CREATE OR REPLACE TEMP MACRO rw_ln_factorial(n) AS
    rw_ln_gamma_series(greatest(n::DOUBLE, 0.0) + 17.0)
    - ln((greatest(n::DOUBLE, 0.0) + 1.0) * (greatest(n::DOUBLE, 0.0) + 2.0) * (greatest(n::DOUBLE, 0.0) + 3.0) * (greatest(n::DOUBLE, 0.0) + 4.0) * (greatest(n::DOUBLE, 0.0) + 5.0) * (greatest(n::DOUBLE, 0.0) + 6.0) * (greatest(n::DOUBLE, 0.0) + 7.0) * (greatest(n::DOUBLE, 0.0) + 8.0) * (greatest(n::DOUBLE, 0.0) + 9.0) * (greatest(n::DOUBLE, 0.0) + 10.0) * (greatest(n::DOUBLE, 0.0) + 11.0) * (greatest(n::DOUBLE, 0.0) + 12.0) * (greatest(n::DOUBLE, 0.0) + 13.0) * (greatest(n::DOUBLE, 0.0) + 14.0) * (greatest(n::DOUBLE, 0.0) + 15.0) * (greatest(n::DOUBLE, 0.0) + 16.0));
CREATE OR REPLACE TEMP MACRO rw_ln_choose(n, k) AS rw_ln_factorial(n) - rw_ln_factorial(k) - rw_ln_factorial(n - k);

-- a / b, and 0 where b = 0 (trec_eval's rule for IDCG = 0, R = 0, ...).
CREATE OR REPLACE TEMP MACRO rw_div0(a, b) AS
    CASE WHEN b = 0 THEN 0.0::DOUBLE ELSE a::DOUBLE / b::DOUBLE END;

-- 1 / a, and 0 where a is NULL (reciprocal rank of "no relevant document").
CREATE OR REPLACE TEMP MACRO rw_recip0(a) AS
    CASE WHEN a IS NULL THEN 0.0::DOUBLE ELSE 1.0 / a::DOUBLE END;

-- 1 where a > 0, else 0.
CREATE OR REPLACE TEMP MACRO rw_positive(a) AS CASE WHEN a > 0 THEN 1.0::DOUBLE ELSE 0.0::DOUBLE END;

-- ERR's stop probability (Chapelle et al. 2009): (2^g - 1) / 2^max_rel, g = rel clipped to [0, max_rel].
CREATE OR REPLACE TEMP MACRO rw_err_stop(rel, max_rel) AS
    (pow(2.0, least(greatest(coalesce(rel::DOUBLE, 0.0), 0.0), max_rel::DOUBLE)) - 1.0)
        / pow(2.0, max_rel::DOUBLE);

-- One character for a relevance value (trec_eval relstring): the level's digit (floor), '>'
-- above 9, '-' unjudged (NULL), '.' judged negative ("in the pool but unjudged").
CREATE OR REPLACE TEMP MACRO rw_rel_char(rel) AS
    CASE
        WHEN rel IS NULL THEN '-'
        WHEN rel < 0 THEN '.'
        WHEN rel >= 10 THEN '>'
        ELSE CAST(CAST(floor(rel) AS BIGINT) AS STRING)
    END;

-- Scalar operations of the recipes (rankwise/primitives.py), one macro each.
CREATE OR REPLACE TEMP MACRO rw_div(a, b) AS a / b;
-- a / b, and NULL (undefined) where b = 0.
CREATE OR REPLACE TEMP MACRO rw_div_null(a, b) AS
    CASE WHEN b = 0 THEN NULL ELSE a::DOUBLE / b::DOUBLE END;
-- value, except for a query with nothing relevant (relevant <= 0) that ranked something (ranked > 0):
-- fill (NULL: left out of the mean), or, with refuse (the metric's label), an error naming the
-- metric and the query (the metrics' empty parameter; rankwise.errors.EmptyQueryError's words).
CREATE OR REPLACE TEMP MACRO rw_when_empty(relevant, ranked, value, qid, fill, refuse) AS
    CASE WHEN relevant <= 0 AND ranked > 0
         THEN (CASE WHEN refuse IS NULL THEN CAST(fill AS DOUBLE)
                    ELSE error('rankwise: metric ''' || refuse || ''' has nothing relevant for query '''
                               || CAST(qid AS STRING) || ''' (empty=''error'' refuses to score it)')
               END)
         ELSE CAST(value AS DOUBLE) END;
-- value, except for a query whose label (rw_label_outside: a judgment outside the metric's labels rule;
-- NULL, or 0, which every rule takes, where none is) is set: an error naming the metric, the query,
-- the label and the rule (the metrics' labels parameter; rankwise.errors.LabelError's words). A label
-- that is an integer below 10^15 is written without a decimal point, as Python writes it.
CREATE OR REPLACE TEMP MACRO rw_label_check(label, value, qid, metric, rule) AS
    CASE WHEN label IS NULL OR label = 0 THEN CAST(value AS DOUBLE)
         ELSE error('rankwise: metric ''' || metric || ''': query ''' || CAST(qid AS STRING) || ''' has label '
                    || (CASE WHEN label = floor(label) AND abs(label) < 1e15 THEN CAST(CAST(label AS BIGINT) AS STRING)
                             ELSE CAST(label AS STRING) END)
                    || '; ' || rule)
    END;
CREATE OR REPLACE TEMP MACRO rw_add(a, b) AS a + b;
CREATE OR REPLACE TEMP MACRO rw_sub(a, b) AS a - b;
CREATE OR REPLACE TEMP MACRO rw_mul(a, b) AS a * b;
CREATE OR REPLACE TEMP MACRO rw_least(a, b) AS least(a, b);
CREATE OR REPLACE TEMP MACRO rw_greatest(a, b) AS greatest(a, b);
CREATE OR REPLACE TEMP MACRO rw_floor(a) AS floor(a);
CREATE OR REPLACE TEMP MACRO rw_power(a, b) AS pow(a, b);

-- ==== 05_checks.sql ====

-- rankwise input checks: the table macros (rw_ranked, rw_judgments, rw_evaluate) refuse what
-- would make their numbers wrong, with an error naming the problem, the column and an example:
--   run:   NULL query_id or doc_id, NULL or NaN score (±infinity is allowed: it ranks first or
--          last), a document listed twice for one query;
--   qrels: NULL query_id or doc_id, NULL, NaN or infinite relevance, a document judged twice;
--   parameters: k (and max_rank) must be positive integers, ties a known policy.
-- Each check macro returns one row, ok = true, or calls error('rankwise: ...'); a table macro
-- keeps its rows WHERE (NOT checks OR (SELECT ok FROM rw_check_run(run_table))): an
-- uncorrelated scalar subquery, computed once per statement (checks := false skips it).
-- One aggregation pass per input: its rows grouped by (query_id, doc_id) (exact: no hashes),
-- then the groups reduced to one row; an example is spelled only for the groups at fault, and
-- the smallest (as text) is shown, so the message does not depend on the engine's row order.
-- The same SQL runs on Spark through rankwise.to_sql (see rankwise._sql.inline.DIALECT_RULES:
-- error() is spelled raise_error() there).

-- A value as it appears in a message: 'text' (quoted), or NULL.
CREATE OR REPLACE TEMP MACRO rw_quoted(x) AS coalesce('''' || CAST(x AS STRING) || '''', 'NULL');

-- Whether a relevance is refused: NULL, NaN or infinite (qrels, subtopic qrels).
CREATE OR REPLACE TEMP MACRO rw_bad_relevance(relevance) AS
    relevance IS NULL OR isnan(CAST(relevance AS DOUBLE)) OR abs(CAST(relevance AS DOUBLE)) = CAST('Infinity' AS DOUBLE);

-- true, or the error naming the first fault found in an input's grouped counts. subject:
-- 'run' or 'qrels'; null_query / null_doc / bad_value / duplicate: an example of each fault
-- (NULL: none); value_fault: what a bad value is, in words.
CREATE OR REPLACE TEMP MACRO rw_check_verdict(subject, query_id_name, doc_id_name, value_name, value_fault, null_query, null_doc, bad_value, duplicate) AS
    CASE
        WHEN null_query IS NOT NULL THEN error('rankwise: the ' || subject || (CASE WHEN subject = 'qrels' THEN '''' ELSE '''s' END)
            || ' column ' || query_id_name || ' holds NULL values (document ' || null_query || ')')
        WHEN null_doc IS NOT NULL THEN error('rankwise: the ' || subject || (CASE WHEN subject = 'qrels' THEN '''' ELSE '''s' END)
            || ' column ' || doc_id_name || ' holds NULL values (query ' || null_doc || ')')
        WHEN bad_value IS NOT NULL THEN error('rankwise: the ' || subject || (CASE WHEN subject = 'qrels' THEN '''' ELSE '''s' END)
            || ' column ' || value_name || ' holds ' || value_fault || ' (query ' || bad_value || ')')
        WHEN duplicate IS NOT NULL THEN error('rankwise: the ' || subject || ' lists document ' || duplicate)
        ELSE true
    END;

-- One row, ok = true, or an error naming the run's first fault (subject: 'run', or 'base run' for the base
-- run of the base-run family, checked as a run). The *_name parameters are the
-- column names the message shows (rankwise.to_sql passes the user's own).
CREATE OR REPLACE TEMP MACRO rw_check_run(run_table, query_id_name := 'query_id', doc_id_name := 'doc_id', score_name := 'score', subject := 'run') AS TABLE
    WITH rw_pairs AS (
        SELECT query_id, doc_id, count(*) AS n,
            sum(CASE WHEN score IS NULL OR isnan(CAST(score AS DOUBLE)) THEN 1 ELSE 0 END) AS bad
        FROM query_table(run_table) AS rw_cost_rows
        GROUP BY query_id, doc_id
    )
    SELECT rw_check_verdict(subject, query_id_name, doc_id_name, score_name, 'NULL or NaN values',
        min(CASE WHEN query_id IS NULL THEN rw_quoted(doc_id) END),
        min(CASE WHEN query_id IS NOT NULL AND doc_id IS NULL THEN rw_quoted(query_id) END),
        min(CASE WHEN bad > 0 THEN rw_quoted(query_id) END),
        min(CASE WHEN n > 1 AND query_id IS NOT NULL AND doc_id IS NOT NULL
                 THEN rw_quoted(doc_id) || ' more than once for query ' || rw_quoted(query_id) END)) AS ok
    FROM rw_pairs;

-- One row, ok = true, or an error naming the qrels' first fault (as rw_check_run).
CREATE OR REPLACE TEMP MACRO rw_check_qrels(qrels_table, query_id_name := 'query_id', doc_id_name := 'doc_id', relevance_name := 'relevance') AS TABLE
    WITH rw_pairs AS (
        SELECT query_id, doc_id, count(*) AS n,
            sum(CASE WHEN rw_bad_relevance(relevance) THEN 1 ELSE 0 END) AS bad
        FROM query_table(qrels_table)
        GROUP BY query_id, doc_id
    )
    SELECT rw_check_verdict('qrels', query_id_name, doc_id_name, relevance_name,
        'a non-finite value (NULL, NaN or infinite)',
        min(CASE WHEN query_id IS NULL THEN rw_quoted(doc_id) END),
        min(CASE WHEN query_id IS NOT NULL AND doc_id IS NULL THEN rw_quoted(query_id) END),
        min(CASE WHEN bad > 0 THEN rw_quoted(query_id) END),
        min(CASE WHEN n > 1 AND query_id IS NOT NULL AND doc_id IS NOT NULL
                 THEN rw_quoted(doc_id) || ' more than once for query ' || rw_quoted(query_id) END)) AS ok
    FROM rw_pairs;

-- true, or an error: parameter name must be a positive integer up to 2**62 (what the engines'
-- 64-bit integers hold safely; k, max_rank); NULL too with
-- null_ok (max_rank NULL: no cutoff).
CREATE OR REPLACE TEMP MACRO rw_check_positive(name, k, null_ok := false) AS
    CASE
        WHEN k IS NULL AND null_ok THEN true
        WHEN k > 4611686018427387904 THEN error('rankwise: ' || name || ' must be at most 2**62, got ' || CAST(k AS STRING))
        WHEN k >= 1 AND k = floor(k) THEN true
        ELSE error('rankwise: ' || name || ' must be a positive integer' || (CASE WHEN null_ok THEN ' or NULL' ELSE '' END)
                   || ', got ' || coalesce(CAST(k AS STRING), 'NULL'))
    END;

-- true, or an error: ties must name a tie policy of rw_ranked.
CREATE OR REPLACE TEMP MACRO rw_check_ties(ties) AS
    CASE
        -- generated: rw_check_ties
        WHEN ties IN ('trec_eval', 'doc_asc', 'doc_desc_numeric', 'input', 'optimistic', 'pessimistic') THEN true
        ELSE error('rankwise: ties must be one of ''trec_eval'', ''doc_asc'', ''doc_desc_numeric'', ''input'', ''optimistic'', ''pessimistic'', got ' || rw_quoted(ties))
        -- end generated: rw_check_ties
    END;

-- One row, ok = true, or an error: a run's cost column (rankwise's cost=, the C/W/L measures'
-- document costs) holds a NULL, NaN, negative or infinite value. cost_name: the column name
-- the message shows.
CREATE OR REPLACE TEMP MACRO rw_check_costs(run_table, cost_name := 'cost') AS TABLE
    WITH rw_costs AS (
        SELECT min(CASE WHEN cost IS NULL OR isnan(CAST(cost AS DOUBLE)) OR cost < 0
                             OR abs(CAST(cost AS DOUBLE)) = CAST('Infinity' AS DOUBLE)
                        THEN rw_quoted(query_id) END) AS bad
        FROM query_table(run_table) AS rw_cost_rows
    )
    SELECT CASE
        WHEN bad IS NOT NULL THEN error('rankwise: the run''s column ''' || cost_name
            || ''' holds NULL, NaN, negative or infinite cost values (query ' || bad || '); a cost must be a finite number >= 0')
        ELSE true
    END AS ok
    FROM rw_costs;

-- ==== 10_ranking.sql ====

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

-- ==== 20_primitives.sql ====

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

-- ==== 25_auc.sql ====

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

-- ==== 30_events.sql ====

-- rankwise gains from interaction events: an event log (query_id, doc_id, event) becomes
-- qrels (query_id, doc_id, relevance). gains is a MAP event -> gain; a pair takes the largest
-- gain of its events (agg 'max') or their sum (agg 'sum'). An event without a gain is an
-- error unless default_gain is given.
--   SELECT * FROM rw_gains_from_events('clicks', MAP {'view': 1, 'wishlist': 3, 'cart': 5, 'purchase': 10});
CREATE OR REPLACE TEMP MACRO rw_gains_from_events(events_table, gains, agg := 'max', default_gain := NULL) AS TABLE
    WITH g AS (
        SELECT query_id, doc_id,
            CASE
                WHEN map_contains(gains, event) THEN map_extract_value(gains, event)::DOUBLE
                WHEN default_gain IS NOT NULL THEN default_gain::DOUBLE
                ELSE error('rankwise: event ''' || event || ''' has no gain in the mapping; add it or pass default_gain')
            END AS gain
        FROM query_table(events_table)
        WHERE event IS NOT NULL
    )
    SELECT query_id, doc_id, CASE WHEN agg = 'sum' THEN sum(gain) ELSE max(gain) END AS relevance
    FROM g
    GROUP BY query_id, doc_id
    ORDER BY query_id, doc_id;

-- ==== 40_diversity.sql ====

-- rankwise diversity (intent-aware) primitives: aggregates over (document, subtopic) pairs, the
-- relevant judgments (relevance >= t) of subtopic qrels, used in a GROUP BY query_id over
--   the run's pairs:           rnk (the document's rank), cov (documents ranked above that
--                              cover the same subtopic), nsub (relevant documents of it);
--   the greedy ideal's pairs:  the same columns in ndeval's greedy ideal ranking;
--   the relevant judgments:    sub (the subtopic).
-- t is the threshold that chose the pairs (the compiler's); the macros do not read it.
-- (rankwise/primitives.py: IntentGain, IdealIntentGain, IntentHits, IntentNew, IntentApSum,
-- Subtopics.)

-- The rank weight of an intent gain: 1 / log2(rank + 1), 1 / rank, or beta^(rank - 1).
CREATE OR REPLACE TEMP MACRO rw_intent_weight(rnk, weight, beta) AS
    CASE weight WHEN 'log2' THEN 1.0 / log2(rnk + 1.0) WHEN 'rank' THEN 1.0 / rnk ELSE pow(beta, rnk - 1.0) END;

-- Σ over pairs at rank <= k of (1 - alpha)^cov · w(rank) (α-DCG, ERR-IA, NRBP).
CREATE OR REPLACE TEMP MACRO rw_intent_gain(rnk, cov, t, k, alpha, weight, beta) AS
    coalesce(sum(CASE WHEN rw_within(rnk, k)
                      THEN pow(1.0 - alpha, cov) * rw_intent_weight(rnk, weight, beta)
                      ELSE 0.0 END), 0.0)::DOUBLE;

-- The same over the greedy ideal's pairs.
CREATE OR REPLACE TEMP MACRO rw_ideal_intent_gain(rnk, cov, t, k, alpha, weight, beta) AS
    rw_intent_gain(rnk, cov, t, k, alpha, weight, beta);

-- Number of pairs at rank <= k (P-IA's count).
CREATE OR REPLACE TEMP MACRO rw_intent_hits(rnk, t, k) AS
    (count(*) FILTER (WHERE rw_within(rnk, k)))::DOUBLE;

-- Number of subtopics first covered at rank <= k (subtopic recall's count).
CREATE OR REPLACE TEMP MACRO rw_intent_new(rnk, cov, t, k) AS
    (count(*) FILTER (WHERE rw_within(rnk, k) AND cov = 0))::DOUBLE;

-- Σ over pairs of (cov + 1) / (rank · nsub): Σ over subtopics of their AP (MAP-IA's sum).
CREATE OR REPLACE TEMP MACRO rw_intent_ap_sum(rnk, cov, nsub, t) AS
    coalesce(sum((cov + 1.0) / (rnk * 1.0 * nsub)), 0.0)::DOUBLE;

-- Number of subtopics with a relevant judgment (ndeval's "actual subtopics").
CREATE OR REPLACE TEMP MACRO rw_subtopics(sub, t) AS count(DISTINCT sub)::DOUBLE;

-- One row, ok = true, or an error naming the first fault of subtopic qrels (query_id,
-- subtopic, doc_id, relevance): a NULL subtopic, a NULL, NaN or infinite relevance (checked
-- row by row: the qrels per document, each document's largest relevance over its subtopics,
-- which rw_check_qrels checks, would hide a NaN or a negative infinity), or a document judged
-- twice for one subtopic of a query.
CREATE OR REPLACE TEMP MACRO rw_check_subtopics(subtopics_table, subtopic_name := 'subtopic', relevance_name := 'relevance') AS TABLE
    WITH rw_triples AS (
        SELECT query_id, subtopic, doc_id, count(*) AS n,
            sum(CASE WHEN rw_bad_relevance(relevance) THEN 1 ELSE 0 END) AS bad
        FROM query_table(subtopics_table)
        GROUP BY query_id, subtopic, doc_id
    ),
    rw_faults AS (
        SELECT min(CASE WHEN subtopic IS NULL THEN rw_quoted(query_id) END) AS null_subtopic,
            min(CASE WHEN bad > 0 THEN rw_quoted(query_id) END) AS null_value,
            min(CASE WHEN n > 1 AND subtopic IS NOT NULL THEN rw_quoted(doc_id) || ' more than once for subtopic '
                || rw_quoted(subtopic) || ' of query ' || rw_quoted(query_id) END) AS duplicate
        FROM rw_triples
    )
    SELECT CASE
        WHEN null_subtopic IS NOT NULL THEN error('rankwise: the qrels'' subtopic column ' || subtopic_name
            || ' holds NULL values (query ' || null_subtopic || ')')
        WHEN null_value IS NOT NULL THEN error('rankwise: the qrels'' column ' || relevance_name
            || ' holds a non-finite value (NULL, NaN or infinite) (query ' || null_value || ')')
        WHEN duplicate IS NOT NULL THEN error('rankwise: the qrels judge document ' || duplicate)
        ELSE true
    END AS ok
    FROM rw_faults;

-- ==== 45_cwl.sql ====

-- rankwise C/W/L user models (cwl_eval; Moffat et al.; Azzopardi, Thomas & Moffat, SIGIR 2019).
-- A user reads rank 1 and goes on from rank i to i + 1 with probability C_i; the chance of
-- reading rank i is P_i = d(i) * S_i: a discount d of the rank alone (rw_cwl_discount) times a
-- survival S_i of the gains above rank i (rw_cwl_reach). The primitives of
-- rankwise/primitives.py's C/W/L block, with the parameter names of their Polars functions.

-- cwl_eval's gain: (clip(max(rel, 0), min_rel, max_rel) - min_rel) / (max_rel - min_rel), unjudged
-- (0; 1 in cwl_eval's best case, its residuals) when unjudged.
CREATE OR REPLACE TEMP MACRO rw_cwl_gain(rel, min_rel, max_rel, unjudged) AS
    CASE WHEN rel IS NULL THEN unjudged::DOUBLE
         ELSE (least(greatest(greatest(rel::DOUBLE, 0.0), min_rel::DOUBLE), max_rel::DOUBLE) - min_rel::DOUBLE)
              / (max_rel::DOUBLE - min_rel::DOUBLE)
    END;

-- ln(1 - g), 0 where g = 1.
CREATE OR REPLACE TEMP MACRO rw_cwl_log(g) AS CASE WHEN g < 1.0 THEN ln(1.0 - g) ELSE 0.0::DOUBLE END;

-- Per-row steps of the running sums: the gain, ln(1 - g) (0 where g = 1), [g = 1].
CREATE OR REPLACE TEMP MACRO rw_cwl_gain_step(rel, min_rel, max_rel, unjudged) AS rw_cwl_gain(rel, min_rel, max_rel, unjudged);
CREATE OR REPLACE TEMP MACRO rw_cwl_log_step(rel, min_rel, max_rel, unjudged) AS rw_cwl_log(rw_cwl_gain(rel, min_rel, max_rel, unjudged));
CREATE OR REPLACE TEMP MACRO rw_cwl_zero_step(rel, min_rel, max_rel, unjudged) AS
    CASE WHEN rw_cwl_gain(rel, min_rel, max_rel, unjudged) >= 1.0 THEN 1 ELSE 0 END;

-- The discount d(i), 0 beyond depth: 'geometric' a^(i - 1); 'insq' (2a / (i - 1 + 2a))^2;
-- 'cutoff' [i <= a]; 'cutoff_recip' [i <= a] / i; 'log2' [i <= a] / log2(i + 1); 'linear'
-- max(0, 1 - (i - 1) / a) before the last rank (U-measure).
CREATE OR REPLACE TEMP MACRO rw_cwl_discount(rnk, shape, a, depth) AS
    CASE
        WHEN rnk > depth THEN 0.0::DOUBLE
        WHEN shape = 'geometric' THEN pow(a::DOUBLE, rnk::DOUBLE - 1.0)
        WHEN shape = 'insq' THEN pow(2.0 * a::DOUBLE / (rnk::DOUBLE - 1.0 + 2.0 * a::DOUBLE), 2.0)
        WHEN shape = 'cutoff' THEN CASE WHEN rnk <= a THEN 1.0 ELSE 0.0 END
        WHEN shape = 'cutoff_recip' THEN CASE WHEN rnk <= a THEN 1.0 / rnk::DOUBLE ELSE 0.0 END
        WHEN shape = 'log2' THEN CASE WHEN rnk <= a THEN 1.0 / log2(rnk::DOUBLE + 1.0) ELSE 0.0 END
        WHEN shape = 'linear' THEN
            CASE WHEN rnk < depth THEN greatest(0.0, 1.0 - (rnk::DOUBLE - 1.0) / a::DOUBLE) ELSE 0.0 END
    END::DOUBLE;

-- S_i, the survival of the gains above the row: 'none' 1; 'product' prod_{j<i} (1 - g_j), 0
-- once a factor is 0, else exp of the running log with this row's own step taken out.
CREATE OR REPLACE TEMP MACRO rw_cwl_reach(rel, cumlog, cumzero, survival, min_rel, max_rel, unjudged) AS
    CASE
        WHEN survival = 'product' THEN
            CASE WHEN cumzero - rw_cwl_zero_step(rel, min_rel, max_rel, unjudged) > 0 THEN 0.0
                 ELSE exp(cumlog - rw_cwl_log_step(rel, min_rel, max_rel, unjudged)) END
        ELSE 1.0
    END::DOUBLE;

-- sum d(i) * S_i * g_i (the expected utility before normalisation).
CREATE OR REPLACE TEMP MACRO rw_cwl_utility(rel, rnk, cumlog, cumzero, shape, a, survival, min_rel, max_rel, unjudged, depth) AS
    coalesce(sum(rw_cwl_discount(rnk, shape, a, depth)
                 * rw_cwl_reach(rel, cumlog, cumzero, survival, min_rel, max_rel, unjudged)
                 * rw_cwl_gain(rel, min_rel, max_rel, unjudged)), 0.0)::DOUBLE;

-- sum d(i) * S_i over the ranked rows.
-- (times c_i, the row's cost, when costed: the expected cost before normalisation).
CREATE OR REPLACE TEMP MACRO rw_cwl_weight(cost, costed) AS CASE WHEN costed THEN cost ELSE 1.0 END::DOUBLE;
CREATE OR REPLACE TEMP MACRO rw_cwl_examined(rel, rnk, cost, cumlog, cumzero, shape, a, survival, min_rel, max_rel, unjudged, depth, costed) AS
    coalesce(sum(rw_cwl_discount(rnk, shape, a, depth)
                 * rw_cwl_reach(rel, cumlog, cumzero, survival, min_rel, max_rel, unjudged)
                 * rw_cwl_weight(cost, costed)), 0.0)::DOUBLE;

-- sum d(i) over the ranked rows.
CREATE OR REPLACE TEMP MACRO rw_cwl_discounted(rnk, shape, a, depth) AS
    coalesce(sum(rw_cwl_discount(rnk, shape, a, depth)), 0.0)::DOUBLE;

-- d(m + 1), m the ranked rows at rank <= depth (the first padded rank's discount).
CREATE OR REPLACE TEMP MACRO rw_cwl_next_discount(rnk, shape, a, depth) AS
    rw_cwl_discount((count(*) FILTER (WHERE rnk <= depth)) + 1, shape, a, depth);

-- S after the rows at rank <= depth (1 for none).
CREATE OR REPLACE TEMP MACRO rw_cwl_survival(rel, rnk, survival, min_rel, max_rel, unjudged, depth) AS
    CASE
        WHEN survival = 'product' THEN
            CASE WHEN coalesce(sum(CASE WHEN rnk <= depth THEN rw_cwl_zero_step(rel, min_rel, max_rel, unjudged) ELSE 0 END), 0) > 0 THEN 0.0
                 ELSE exp(coalesce(sum(CASE WHEN rnk <= depth THEN rw_cwl_log_step(rel, min_rel, max_rel, unjudged) ELSE 0.0 END), 0.0)) END
        ELSE 1.0
    END::DOUBLE;

-- sum_{i <= depth} c_i.
CREATE OR REPLACE TEMP MACRO rw_cwl_cost_total(rnk, cost, depth) AS
    coalesce(sum(CASE WHEN rnk <= depth THEN cost ELSE 0.0 END), 0.0)::DOUBLE;

-- sum_{i <= depth} g_i.
CREATE OR REPLACE TEMP MACRO rw_cwl_gain_total(rel, rnk, min_rel, max_rel, unjudged, depth) AS
    coalesce(sum(CASE WHEN rnk <= depth THEN rw_cwl_gain(rel, min_rel, max_rel, unjudged) ELSE 0.0 END), 0.0)::DOUBLE;

-- INST (Moffat, Bailey, Scholer & Thomas 2015): C_i = ((i + 2T - G_i - 1) / (i + 2T - G_i))^2, G_i
-- the running gain cumgain (as cwl_eval writes it); its running log and count of zero factors
-- sum steps of the running gain.
CREATE OR REPLACE TEMP MACRO rw_inst_continue(rnk, cumgain, target) AS
    pow((rnk::DOUBLE + target::DOUBLE + (target::DOUBLE - cumgain) - 1.0) / (rnk::DOUBLE + target::DOUBLE + (target::DOUBLE - cumgain)), 2.0);
CREATE OR REPLACE TEMP MACRO rw_inst_log_step(rnk, cumgain, target) AS
    CASE WHEN rw_inst_continue(rnk, cumgain, target) > 0.0 THEN ln(rw_inst_continue(rnk, cumgain, target)) ELSE 0.0::DOUBLE END;
CREATE OR REPLACE TEMP MACRO rw_inst_zero_step(rnk, cumgain, target) AS
    CASE WHEN rw_inst_continue(rnk, cumgain, target) <= 0.0 THEN 1 ELSE 0 END;

-- P_i = prod_{j<i} C_j: 0 once a factor is 0, else from the running log without the row's own.
CREATE OR REPLACE TEMP MACRO rw_inst_reach(rnk, cumgain, cumlog, cumzero, target) AS
    CASE WHEN cumzero - rw_inst_zero_step(rnk, cumgain, target) > 0 THEN 0.0::DOUBLE
         ELSE exp(cumlog - rw_inst_log_step(rnk, cumgain, target)) END;

-- sum_{i <= depth} P_i * g_i, and sum_{i <= depth} P_i.
CREATE OR REPLACE TEMP MACRO rw_inst_utility(rel, rnk, cumgain, cumlog, cumzero, target, min_rel, max_rel, unjudged, depth) AS
    coalesce(sum(CASE WHEN rnk <= depth
                      THEN rw_inst_reach(rnk, cumgain, cumlog, cumzero, target) * rw_cwl_gain(rel, min_rel, max_rel, unjudged)
                      ELSE 0.0 END), 0.0)::DOUBLE;
CREATE OR REPLACE TEMP MACRO rw_inst_examined(rel, rnk, cost, cumgain, cumlog, cumzero, target, min_rel, max_rel, unjudged, depth, costed) AS
    coalesce(sum(CASE WHEN rnk <= depth
                      THEN rw_inst_reach(rnk, cumgain, cumlog, cumzero, target) * rw_cwl_weight(cost, costed)
                      ELSE 0.0 END), 0.0)::DOUBLE;

-- The trigamma function psi1(x) = sum_{t >= 0} 1 / (x + t)^2 for x > 0: ten terms, then the
-- asymptotic series at x + 10.
CREATE OR REPLACE TEMP MACRO rw_trigamma_series(y) AS
    1.0 / y + 1.0 / (2.0 * y * y)
    + (1.0::DOUBLE / 6.0 + (1.0 / (y * y)) * (-1.0::DOUBLE / 30.0 + (1.0 / (y * y)) * (1.0::DOUBLE / 42.0 + (1.0 / (y * y)) * (-1.0::DOUBLE / 30.0
       + (1.0 / (y * y)) * (5.0::DOUBLE / 66.0 + (1.0 / (y * y)) * (-691.0::DOUBLE / 2730.0)))))) / (y * y * y);
CREATE OR REPLACE TEMP MACRO rw_trigamma(x) AS
    1.0 / pow(x, 2.0) + 1.0 / pow(x + 1.0, 2.0) + 1.0 / pow(x + 2.0, 2.0) + 1.0 / pow(x + 3.0, 2.0)
    + 1.0 / pow(x + 4.0, 2.0) + 1.0 / pow(x + 5.0, 2.0) + 1.0 / pow(x + 6.0, 2.0) + 1.0 / pow(x + 7.0, 2.0)
    + 1.0 / pow(x + 8.0, 2.0) + 1.0 / pow(x + 9.0, 2.0) + rw_trigamma_series(x + 10.0);

-- Over the rows at rank <= depth (m of them, gain G_m): P_{m+1}, m, and a = 2T - G_m.
CREATE OR REPLACE TEMP MACRO rw_inst_after_reach(rnk, cumgain, target, depth) AS
    CASE WHEN coalesce(sum(CASE WHEN rnk <= depth THEN rw_inst_zero_step(rnk, cumgain, target) ELSE 0 END), 0) > 0 THEN 0.0
         ELSE exp(coalesce(sum(CASE WHEN rnk <= depth THEN rw_inst_log_step(rnk, cumgain, target) ELSE 0.0 END), 0.0)) END;
CREATE OR REPLACE TEMP MACRO rw_inst_after_m(rnk, depth) AS (count(*) FILTER (WHERE rnk <= depth))::DOUBLE;
CREATE OR REPLACE TEMP MACRO rw_inst_after_a(rel, rnk, target, min_rel, max_rel, unjudged, depth) AS
    2.0 * target::DOUBLE - coalesce(sum(CASE WHEN rnk <= depth THEN rw_cwl_gain(rel, min_rel, max_rel, unjudged) ELSE 0.0 END), 0.0);

-- sum_{m < i <= depth} P_i over the padding: of gain 0, P_{m+1} (m + a)^2 (psi1(m + a) - psi1(depth + a));
-- of gain 1 (unjudged = 1), C = ((m + a - 1) / (m + a))^2 at every padded rank: P_{m+1} (1 - C^(depth - m)) / (1 - C).
CREATE OR REPLACE TEMP MACRO rw_inst_pad_c(x) AS pow((x - 1.0) / x, 2.0);
CREATE OR REPLACE TEMP MACRO rw_inst_pad_sum(start, stop, unjudged) AS
    CASE WHEN unjudged = 0 THEN pow(start, 2.0) * (rw_trigamma(start) - rw_trigamma(stop))
         WHEN rw_inst_pad_c(start) = 1.0 THEN stop - start
         ELSE (1.0 - pow(rw_inst_pad_c(start), stop - start)) / (1.0 - rw_inst_pad_c(start)) END;
CREATE OR REPLACE TEMP MACRO rw_inst_tail(rel, rnk, cumgain, target, min_rel, max_rel, unjudged, depth) AS
    (rw_inst_after_reach(rnk, cumgain, target, depth)
     * rw_inst_pad_sum(rw_inst_after_m(rnk, depth) + rw_inst_after_a(rel, rnk, target, min_rel, max_rel, unjudged, depth),
                       depth::DOUBLE + rw_inst_after_a(rel, rnk, target, min_rel, max_rel, unjudged, depth), unjudged))::DOUBLE;

-- P_{depth+1}: P_{m+1} ((m + a) / (depth + a))^2 (padding of gain 0), P_{m+1} C^(depth - m) (gain 1).
CREATE OR REPLACE TEMP MACRO rw_inst_pad_end(start, stop, unjudged) AS
    CASE WHEN unjudged = 0 THEN pow(start / stop, 2.0) ELSE pow(rw_inst_pad_c(start), stop - start) END;
CREATE OR REPLACE TEMP MACRO rw_inst_end(rel, rnk, cumgain, target, min_rel, max_rel, unjudged, depth) AS
    (rw_inst_after_reach(rnk, cumgain, target, depth)
     * rw_inst_pad_end(rw_inst_after_m(rnk, depth) + rw_inst_after_a(rel, rnk, target, min_rel, max_rel, unjudged, depth),
                       depth::DOUBLE + rw_inst_after_a(rel, rnk, target, min_rel, max_rel, unjudged, depth), unjudged))::DOUBLE;

-- BPM (Zhang et al. 2017), as cwl_eval: the user goes on from rank i while G_i < T_i and i < k,
-- T_i = target + hb (G_{i-1} - (i - 1) gain_med) (hb = 0: the static model), G = cumgain.
-- 1 where G_i >= T_i (a failure: the user has the gain wanted).
CREATE OR REPLACE TEMP MACRO rw_bpm_fail_step(rel, rnk, cumgain, target, hb, gain_med, min_rel, max_rel, unjudged) AS
    CASE WHEN cumgain >= target::DOUBLE + hb::DOUBLE * ((cumgain - rw_cwl_gain(rel, min_rel, max_rel, unjudged))
                                                        - (rnk::DOUBLE - 1.0) * gain_med::DOUBLE)
         THEN 1 ELSE 0 END;

-- P_i = [i <= k] [no failure above] (0 beyond depth).
CREATE OR REPLACE TEMP MACRO rw_bpm_reach(rel, rnk, cumgain, cumfail, above, target, hb, gain_med, k, min_rel, max_rel, unjudged, depth) AS
    CASE WHEN above < k AND rnk <= depth
              AND cumfail - rw_bpm_fail_step(rel, rnk, cumgain, target, hb, gain_med, min_rel, max_rel, unjudged) = 0
         THEN 1.0 ELSE 0.0 END::DOUBLE;

-- sum_{i <= depth} P_i g_i, and sum_{i <= depth} P_i.
CREATE OR REPLACE TEMP MACRO rw_bpm_utility(rel, rnk, cumgain, cumfail, above, target, hb, gain_med, k, min_rel, max_rel, unjudged, depth) AS
    coalesce(sum(rw_bpm_reach(rel, rnk, cumgain, cumfail, above, target, hb, gain_med, k, min_rel, max_rel, unjudged, depth)
                 * rw_cwl_gain(rel, min_rel, max_rel, unjudged)), 0.0)::DOUBLE;
CREATE OR REPLACE TEMP MACRO rw_bpm_examined(rel, rnk, cost, cumgain, cumfail, above, target, hb, gain_med, k, min_rel, max_rel, unjudged, depth, costed) AS
    coalesce(sum(rw_bpm_reach(rel, rnk, cumgain, cumfail, above, target, hb, gain_med, k, min_rel, max_rel, unjudged, depth)
                 * rw_cwl_weight(cost, costed)), 0.0)::DOUBLE;

-- Over the rows at rank <= depth (m of them, gain G_m): S = 1 when none failed; the first
-- failing rank j* of the padding (gain u = unjudged there, G_i = G_m + (i - m) u: fails where
-- beta (i - 1) + alpha >= 0, beta = u (1 - hb) + hb gain_med, alpha = (1 - hb) (G_m - m u) + u - target;
-- when beta <= 0, at m + 1 if it fails there, else never).
CREATE OR REPLACE TEMP MACRO rw_bpm_survive(rel, rnk, cumgain, target, hb, gain_med, min_rel, max_rel, unjudged, depth) AS
    CASE WHEN coalesce(sum(CASE WHEN rnk <= depth
                                THEN rw_bpm_fail_step(rel, rnk, cumgain, target, hb, gain_med, min_rel, max_rel, unjudged)
                                ELSE 0 END), 0) = 0 THEN 1.0 ELSE 0.0 END::DOUBLE;
CREATE OR REPLACE TEMP MACRO rw_bpm_m(rnk, depth) AS (count(*) FILTER (WHERE rnk <= depth))::DOUBLE;
CREATE OR REPLACE TEMP MACRO rw_bpm_total(rel, rnk, min_rel, max_rel, unjudged, depth) AS
    coalesce(sum(CASE WHEN rnk <= depth THEN rw_cwl_gain(rel, min_rel, max_rel, unjudged) ELSE 0.0 END), 0.0)::DOUBLE;
CREATE OR REPLACE TEMP MACRO rw_bpm_pad_rate(hb, gain_med, unjudged) AS
    unjudged::DOUBLE * (1.0 - hb::DOUBLE) + hb::DOUBLE * gain_med::DOUBLE;
CREATE OR REPLACE TEMP MACRO rw_bpm_first_fail(rel, rnk, target, hb, gain_med, min_rel, max_rel, unjudged, depth) AS
    CASE
        WHEN rw_bpm_pad_rate(hb, gain_med, unjudged) > 0 THEN
            greatest(rw_bpm_m(rnk, depth) + 1.0,
                     ceil(-((1.0 - hb::DOUBLE) * (rw_bpm_total(rel, rnk, min_rel, max_rel, unjudged, depth)
                                                  - rw_bpm_m(rnk, depth) * unjudged::DOUBLE)
                            + unjudged::DOUBLE - target::DOUBLE)
                          / rw_bpm_pad_rate(hb, gain_med, unjudged)) + 1.0)
        WHEN rw_bpm_total(rel, rnk, min_rel, max_rel, unjudged, depth) + unjudged::DOUBLE
             >= target::DOUBLE + hb::DOUBLE * (rw_bpm_total(rel, rnk, min_rel, max_rel, unjudged, depth)
                                               - rw_bpm_m(rnk, depth) * gain_med::DOUBLE)
            THEN rw_bpm_m(rnk, depth) + 1.0
        ELSE NULL
    END::DOUBLE;

-- the last padded rank the cost budget reaches: m + ceil(k - K_m), K_m the costs of the rows at
-- rank <= depth (each padded document costs 1: k when every document costs 1).
CREATE OR REPLACE TEMP MACRO rw_bpm_last(rnk, cost, k, depth) AS
    (rw_bpm_m(rnk, depth) + ceil(k::DOUBLE - coalesce(sum(CASE WHEN rnk <= depth THEN cost ELSE 0.0 END), 0.0)))::DOUBLE;

-- sum_{m < i <= depth} P_i = S max(0, min(depth, m + ceil(k - K_m), j*) - m) over the padding (j* NULL: never).
CREATE OR REPLACE TEMP MACRO rw_bpm_tail(rel, rnk, cost, cumgain, target, hb, gain_med, k, min_rel, max_rel, unjudged, depth) AS
    (rw_bpm_survive(rel, rnk, cumgain, target, hb, gain_med, min_rel, max_rel, unjudged, depth)
     * greatest(0.0, least(least(depth::DOUBLE, rw_bpm_last(rnk, cost, k, depth)),
                           coalesce(rw_bpm_first_fail(rel, rnk, target, hb, gain_med, min_rel, max_rel, unjudged, depth),
                                    depth::DOUBLE))
                     - rw_bpm_m(rnk, depth)))::DOUBLE;

-- P_{depth+1} = S [depth < m + ceil(k - K_m)] [depth + 1 <= j*].
CREATE OR REPLACE TEMP MACRO rw_bpm_end(rel, rnk, cost, cumgain, target, hb, gain_med, k, min_rel, max_rel, unjudged, depth) AS
    (rw_bpm_survive(rel, rnk, cumgain, target, hb, gain_med, min_rel, max_rel, unjudged, depth)
     * CASE WHEN depth < rw_bpm_last(rnk, cost, k, depth)
                 AND coalesce(rw_bpm_first_fail(rel, rnk, target, hb, gain_med, min_rel, max_rel, unjudged, depth)
                              >= depth + 1.0, true)
            THEN 1.0 ELSE 0.0 END)::DOUBLE;

-- IFT (Azzopardi, Thomas & Craswell 2018), as cwl_eval: C_i = C1_i C2_i, the goal C1 = 1 - 1 / (1 +
-- b1 e^((target - G_i) r1)) (goal) and the rate C2 = 1 / (1 + b2 e^((rate_a - G_i / K_i) r2)) (rate), G
-- the running gain, K the running cost cumcost (i when each document costs 1); ln C1 = -softplus(-(target
-- - G) r1 - ln b1), ln C2 = -softplus((rate_a - G / K) r2 + ln b2), softplus(z) = ln(1 + e^z) without
-- overflow. K = 0 (every document down to rank i costs 0): G > 0 and r2 > 0 make the rate +infinity,
-- ln C2 = 0 (as cwl_eval); G = 0 (0 / 0) or r2 = 0 (inf * 0) make cwl_eval's C2 NaN: an error.
CREATE OR REPLACE TEMP MACRO rw_softplus(z) AS greatest(z, 0.0) + ln(1.0 + exp(-abs(z)));
CREATE OR REPLACE TEMP MACRO rw_ift_log(cumcost, cumgain, goal, rate, target, b1, r1, rate_a, b2, r2) AS
    ((CASE WHEN goal THEN -rw_softplus(-(target::DOUBLE - cumgain) * r1::DOUBLE - ln(b1::DOUBLE)) ELSE 0.0 END)
     + (CASE WHEN NOT rate THEN 0.0
             WHEN cumcost > 0.0 THEN -rw_softplus((rate_a::DOUBLE - cumgain / cumcost::DOUBLE) * r2::DOUBLE + ln(b2::DOUBLE))
             WHEN cumgain > 0.0 AND r2 > 0.0 THEN 0.0
             ELSE error('rankwise: the rate of gain G_i / K_i of IFTRate and IFTGoalRate is undefined: the first-ranked document '
                        || 'of a query has cost 0 (the run''s cost column) and gain 0 (0 / 0), or cost 0 with R2 = 0 '
                        || '(inf * 0), where cwl_eval gives NaN; give it a positive cost')
        END))::DOUBLE;
CREATE OR REPLACE TEMP MACRO rw_cost_step(cost) AS cost::DOUBLE;
CREATE OR REPLACE TEMP MACRO rw_ift_log_step(cumcost, cumgain, goal, rate, target, b1, r1, rate_a, b2, r2) AS
    rw_ift_log(cumcost, cumgain, goal, rate, target, b1, r1, rate_a, b2, r2);

-- P_i = exp(sum_{j<i} ln C_j).
CREATE OR REPLACE TEMP MACRO rw_ift_reach(cumcost, cumgain, cumlog, goal, rate, target, b1, r1, rate_a, b2, r2) AS
    exp(cumlog - rw_ift_log(cumcost, cumgain, goal, rate, target, b1, r1, rate_a, b2, r2));

-- sum_{i <= depth} P_i g_i, and sum_{i <= depth} P_i.
CREATE OR REPLACE TEMP MACRO rw_ift_utility(rel, rnk, cumgain, cumcost, cumlog, goal, rate, target, b1, r1, rate_a, b2, r2, min_rel, max_rel, unjudged, depth) AS
    coalesce(sum(CASE WHEN rnk <= depth
                      THEN rw_ift_reach(cumcost, cumgain, cumlog, goal, rate, target, b1, r1, rate_a, b2, r2)
                           * rw_cwl_gain(rel, min_rel, max_rel, unjudged)
                      ELSE 0.0 END), 0.0)::DOUBLE;
CREATE OR REPLACE TEMP MACRO rw_ift_examined(rel, rnk, cost, cumgain, cumcost, cumlog, goal, rate, target, b1, r1, rate_a, b2, r2, min_rel, max_rel, unjudged, depth, costed) AS
    coalesce(sum(CASE WHEN rnk <= depth
                      THEN rw_ift_reach(cumcost, cumgain, cumlog, goal, rate, target, b1, r1, rate_a, b2, r2)
                           * rw_cwl_weight(cost, costed)
                      ELSE 0.0 END), 0.0)::DOUBLE;

-- 1 - C, without subtracting from 1 (C near 1 would lose its digits): with ln C1 = -softplus(-z1),
-- 1 - C1 = e^(-softplus(z1)), 1 - C2 likewise, and 1 - C1 C2 = (1 - C1) + C1 (1 - C2), a sum of
-- nonnegative terms (K = 0: 1 - C2 = 0 where C2 = 1; where the rate is undefined rw_ift_log refuses).
CREATE OR REPLACE TEMP MACRO rw_ift_stop(cumcost, cumgain, goal, rate, target, b1, r1, rate_a, b2, r2) AS
    ((CASE WHEN goal THEN exp(-rw_softplus((target::DOUBLE - cumgain) * r1::DOUBLE + ln(b1::DOUBLE))) ELSE 0.0 END)
     + (CASE WHEN goal THEN exp(-rw_softplus(-(target::DOUBLE - cumgain) * r1::DOUBLE - ln(b1::DOUBLE))) ELSE 1.0 END)
       * (CASE WHEN rate AND cumcost > 0.0
               THEN exp(-rw_softplus(-(rate_a::DOUBLE - cumgain / cumcost::DOUBLE) * r2::DOUBLE - ln(b2::DOUBLE)))
               ELSE 0.0 END))::DOUBLE;

-- The padded ranks i = m + 1 .. depth (gain unjudged and cost 1 there, G_i = G_m + (i - m) unjudged,
-- K_i = K_m + i - m) are walked from rank m (the list is never empty) with the state (p: P_i, v: a
-- sum so far, g: G_m, k: K_m, m), which starts at P_{m+1} = exp(sum over the rows of ln C), v = 0.
CREATE OR REPLACE TEMP MACRO rw_ift_start(rel, rnk, cost, cumgain, cumcost, goal, rate, target, b1, r1, rate_a, b2, r2, min_rel, max_rel, unjudged, depth) AS
    struct_pack(
        p := exp(coalesce(sum(CASE WHEN rnk <= depth
                                   THEN rw_ift_log(cumcost, cumgain, goal, rate, target, b1, r1, rate_a, b2, r2)
                                   ELSE 0.0 END), 0.0))::DOUBLE,
        v := 0.0::DOUBLE,
        g := rw_bpm_total(rel, rnk, min_rel, max_rel, unjudged, depth),
        k := rw_cwl_cost_total(rnk, cost, depth),
        m := rw_bpm_m(rnk, depth));

-- K_i and G_i at the padded rank i of the walk's state.
CREATE OR REPLACE TEMP MACRO rw_ift_pad_cost(acc, i) AS acc.k + (i::DOUBLE - acc.m);
CREATE OR REPLACE TEMP MACRO rw_ift_pad_gain(acc, i, unjudged) AS acc.g + (i::DOUBLE - acc.m) * unjudged::DOUBLE;

-- The walk's next state at the padded rank i: P_{i+1} = P_i C_i, v + ``term`` (its value at rank i).
CREATE OR REPLACE TEMP MACRO rw_ift_step(acc, i, term, unjudged, goal, rate, target, b1, r1, rate_a, b2, r2) AS
    struct_pack(
        p := acc.p * exp(rw_ift_log(rw_ift_pad_cost(acc, i), rw_ift_pad_gain(acc, i, unjudged),
                                    goal, rate, target, b1, r1, rate_a, b2, r2)),
        v := acc.v + term, g := acc.g, k := acc.k, m := acc.m);

-- sum_{m < i <= depth} P_i over the padding.
CREATE OR REPLACE TEMP MACRO rw_ift_tail(rel, rnk, cost, cumgain, cumcost, goal, rate, target, b1, r1, rate_a, b2, r2, min_rel, max_rel, unjudged, depth) AS
    (list_reduce(
        generate_series(rw_bpm_m(rnk, depth)::BIGINT, depth::BIGINT),
        lambda acc, i: CASE WHEN i::DOUBLE > acc.m
            THEN rw_ift_step(acc, i, acc.p, unjudged, goal, rate, target, b1, r1, rate_a, b2, r2)
            ELSE acc END,
        rw_ift_start(rel, rnk, cost, cumgain, cumcost, goal, rate, target, b1, r1, rate_a, b2, r2, min_rel, max_rel, unjudged, depth))).v;

-- The padding's part of rw_ift_total: sum_{m < i <= depth} P_i (1 - C_i) G_i (K_i when costed), a
-- walk of its own (DuckDB would not share one walk between the two values).
CREATE OR REPLACE TEMP MACRO rw_ift_stop_tail(rel, rnk, cost, cumgain, cumcost, goal, rate, target, b1, r1, rate_a, b2, r2, min_rel, max_rel, unjudged, depth, costed) AS
    (list_reduce(
        generate_series(rw_bpm_m(rnk, depth)::BIGINT, depth::BIGINT),
        lambda acc, i: CASE WHEN i::DOUBLE > acc.m
            THEN rw_ift_step(acc, i,
                             acc.p * rw_ift_stop(rw_ift_pad_cost(acc, i), rw_ift_pad_gain(acc, i, unjudged),
                                                 goal, rate, target, b1, r1, rate_a, b2, r2)
                             * (CASE WHEN costed THEN rw_ift_pad_cost(acc, i) ELSE rw_ift_pad_gain(acc, i, unjudged) END),
                             unjudged, goal, rate, target, b1, r1, rate_a, b2, r2)
            ELSE acc END,
        rw_ift_start(rel, rnk, cost, cumgain, cumcost, goal, rate, target, b1, r1, rate_a, b2, r2, min_rel, max_rel, unjudged, depth))).v;

-- sum_{i <= depth} P_i (1 - C_i) G_i (K_i, costed: cwl_eval's ETU, ETC as it sums them) over the
-- ranked rows and the padding.
CREATE OR REPLACE TEMP MACRO rw_ift_total(rel, rnk, cost, cumgain, cumcost, cumlog, goal, rate, target, b1, r1, rate_a, b2, r2, min_rel, max_rel, unjudged, depth, costed) AS
    (coalesce(sum(CASE WHEN rnk <= depth
                       THEN rw_ift_reach(cumcost, cumgain, cumlog, goal, rate, target, b1, r1, rate_a, b2, r2)
                            * rw_ift_stop(cumcost, cumgain, goal, rate, target, b1, r1, rate_a, b2, r2)
                            * (CASE WHEN costed THEN cumcost::DOUBLE ELSE cumgain END)
                       ELSE 0.0 END), 0.0)
     + rw_ift_stop_tail(rel, rnk, cost, cumgain, cumcost, goal, rate, target, b1, r1, rate_a, b2, r2, min_rel, max_rel, unjudged, depth, costed))::DOUBLE;

-- U-measure and TBG place a document by the costs of the documents above it, K_{i-1} (a window
-- over the query's ranked rows): d(1 + K) is 'geometric' a^K, 'linear' max(0, 1 - K / a) before
-- the last rank; cut by rank at depth. The padding (cost 1 a document) in closed form.
CREATE OR REPLACE TEMP MACRO rw_cost_above(cost, rnk, qid) AS
    coalesce(sum(cost) OVER (PARTITION BY qid ORDER BY rnk ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0.0);
CREATE OR REPLACE TEMP MACRO rw_cwl_cost_discount(rnk, above, shape, a, depth) AS
    CASE
        WHEN rnk > depth THEN 0.0
        WHEN shape = 'geometric' THEN pow(a, above)
        WHEN shape = 'linear' THEN CASE WHEN rnk < depth THEN greatest(0.0, 1.0 - above / a) ELSE 0.0 END
    END::DOUBLE;
CREATE OR REPLACE TEMP MACRO rw_cwl_cost_utility(rel, rnk, above, shape, a, min_rel, max_rel, unjudged, depth) AS
    coalesce(sum(rw_cwl_cost_discount(rnk, above, shape, a, depth) * rw_cwl_gain(rel, min_rel, max_rel, unjudged)), 0.0)::DOUBLE;
CREATE OR REPLACE TEMP MACRO rw_cwl_cost_examined(rel, rnk, cost, above, shape, a, min_rel, max_rel, unjudged, depth, costed) AS
    coalesce(sum(rw_cwl_cost_discount(rnk, above, shape, a, depth) * rw_cwl_weight(cost, costed)), 0.0)::DOUBLE;
-- the padded ranks' sum from m (ranked rows at rank <= depth) and k (their costs); no padded rank
-- (j = 0) sums to 0, also where k / a overflows (a tiny L)
CREATE OR REPLACE TEMP MACRO rw_cwl_linear_pad(j, k, a) AS (CASE WHEN j > 0 THEN j * (1.0 - k / a) - j * (j - 1.0) / (2.0 * a) ELSE 0.0 END)::DOUBLE;
CREATE OR REPLACE TEMP MACRO rw_cwl_cost_pad(m, k, shape, a, depth) AS
    CASE
        WHEN shape = 'geometric' AND a = 1.0 THEN depth - m
        WHEN shape = 'geometric' THEN pow(a, k) * (1.0 - pow(a, depth - m)) / (1.0 - a)
        WHEN shape = 'linear' THEN rw_cwl_linear_pad(least(greatest(ceil(a - k), 0.0), greatest(depth - m - 1.0, 0.0)), k, a)
    END::DOUBLE;
CREATE OR REPLACE TEMP MACRO rw_cwl_cost_tail(rnk, cost, shape, a, depth) AS
    rw_cwl_cost_pad((count(*) FILTER (WHERE rnk <= depth))::DOUBLE,
                    coalesce(sum(CASE WHEN rnk <= depth THEN cost ELSE 0.0 END), 0.0), shape, a, depth);

-- ==== 50_popularity.sql ====

-- rankwise's popularity family (rankwise/primitives/popularity.py): aggregate macros over the
-- ranked rows (rnk the rank, rel the relevance) carrying the values of the training interactions:
-- iusers and irows (the row's item's distinct training users and rows; 0 for an item never in
-- training), ibefore (the distinct users of the training items more popular than it, ties by item id), iasc
-- (its place among the training items by rows ascending, ties by item id), iqusers and iqrows (its popularity
-- quantile by users and by rows), nitems (the training items), seen (the query's user has the item among its training rows), and the training's
-- totals nusers (distinct users), nrows (rows), npairs (distinct (user, item) pairs) and minusers
-- (the fewest distinct users of a training item). Each sum runs over the ranks <= k (k NULL: all).

-- The discount of a rank: 1 / log2(rnk + 1).
CREATE OR REPLACE TEMP MACRO rw_rank_discount(rnk) AS 1.0 / log2(rnk::DOUBLE + 1.0);

-- Σ_{rnk <= k} -log2(max(iusers, 1) / nusers) (rectools' MeanInvUserFreq).
CREATE OR REPLACE TEMP MACRO rw_inv_user_freq_sum(rnk, iusers, nusers, k) AS
    coalesce(sum(CASE WHEN rw_within(rnk, k) THEN -log2(greatest(iusers, 1.0) / nusers) ELSE 0.0 END), 0.0)::DOUBLE;

-- Σ_{rnk <= k} (1 for an item never in training, else log2(nusers / iusers) / log2(nusers)) (RePlay's
-- Surprisal); NULL when nusers = 1 and a training item is listed within k (RePlay's 0 / 0).
CREATE OR REPLACE TEMP MACRO rw_surprisal_sum(rnk, iusers, nusers, k) AS
    CASE WHEN count(*) FILTER (WHERE rw_within(rnk, k) AND iusers > 0 AND nusers = 1) > 0 THEN NULL
         ELSE coalesce(sum(CASE WHEN NOT rw_within(rnk, k) THEN 0.0 WHEN iusers = 0 THEN 1.0
                                WHEN nusers = 1 THEN 0.0 ELSE log2(nusers / iusers) / log2(nusers) END), 0.0)
    END::DOUBLE;

-- Σ_{rnk <= k} the item's training rows ('interactions') or distinct training users ('users').
CREATE OR REPLACE TEMP MACRO rw_popularity_sum(rnk, irows, iusers, k, popularity) AS
    coalesce(sum(CASE WHEN rw_within(rnk, k)
                      THEN (CASE WHEN popularity = 'interactions' THEN irows ELSE iusers END)::DOUBLE
                      ELSE 0.0 END), 0.0)::DOUBLE;

-- Σ_{rnk <= k} [the user has no training row of the item].
CREATE OR REPLACE TEMP MACRO rw_unseen_sum(rnk, seen, k) AS
    coalesce(sum(CASE WHEN rw_within(rnk, k) AND NOT seen THEN 1.0 ELSE 0.0 END), 0.0)::DOUBLE;

-- Σ_{rnk <= k} [the item is in the long tail: a training item whose more popular items' users (ibefore) reach
-- head of the training's (user, item) pairs; Elliot's 80% rule].
CREATE OR REPLACE TEMP MACRO rw_long_tail_sum(rnk, iusers, ibefore, npairs, k, head) AS
    coalesce(sum(CASE WHEN rw_within(rnk, k) AND iusers > 0 AND ibefore >= head * npairs THEN 1.0 ELSE 0.0 END), 0.0)::DOUBLE;

-- Σ_{rnk <= k} [the item is in the long tail the user gives: fgroups, its groups in groups= (weight > 0, as text),
-- hold tail; NULL fgroups: an item groups= does not hold, in neither].
CREATE OR REPLACE TEMP MACRO rw_group_tail_sum(rnk, fgroups, k, tail) AS
    coalesce(sum(CASE WHEN rw_within(rnk, k) AND coalesce(array_contains(fgroups, tail), false) THEN 1.0 ELSE 0.0 END),
             0.0)::DOUBLE;

-- Σ_{rnk <= k} [the item is in RecBole's long tail: tail_ratio <= 1, the first max(floor(nitems * tail_ratio), 1)
-- training items by rows ascending, ties by item id (iasc); above 1, the training items with at most tail_ratio rows].
CREATE OR REPLACE TEMP MACRO rw_tail_ratio_sum(rnk, irows, iasc, nitems, k, tail_ratio) AS
    coalesce(sum(CASE WHEN rw_within(rnk, k) AND irows > 0
                       AND (CASE WHEN tail_ratio > 1 THEN irows <= tail_ratio
                                 ELSE iasc <= greatest(floor(nitems * tail_ratio), 1.0) END)
                      THEN 1.0 ELSE 0.0 END), 0.0)::DOUBLE;

-- Σ_{rnk <= k} the item's popularity quantile (iqusers by distinct users, iqrows by rows: its average ascending rank
-- among the training items over their number; 0 for an item never in training; LensKit's MeanPopRank).
CREATE OR REPLACE TEMP MACRO rw_pop_quantile_sum(rnk, iqusers, iqrows, k, popularity) AS
    coalesce(sum(CASE WHEN rw_within(rnk, k)
                      THEN (CASE WHEN popularity = 'interactions' THEN iqrows ELSE iqusers END) ELSE 0.0 END), 0.0)::DOUBLE;

-- Σ_{rnk <= k} 1 / log2(rnk + 1).
CREATE OR REPLACE TEMP MACRO rw_discount_sum(rnk, k) AS
    coalesce(sum(CASE WHEN rw_within(rnk, k) THEN rw_rank_discount(rnk) ELSE 0.0 END), 0.0)::DOUBLE;

-- Elliot's EPC numerator: Σ_{rnk <= k, relevant} (1 - iusers / nusers) / log2(rnk + 1).
CREATE OR REPLACE TEMP MACRO rw_epc_sum(rel, rnk, iusers, nusers, t, k) AS
    coalesce(sum(CASE WHEN rw_within(rnk, k) AND rw_is_rel(rel, t)
                      THEN (1.0 - iusers::DOUBLE / nusers) * rw_rank_discount(rnk) ELSE 0.0 END), 0.0)::DOUBLE;

-- Elliot's EFD numerator: Σ_{rnk <= k, relevant} -log2(max(iusers, minusers) / npairs) / log2(rnk + 1).
CREATE OR REPLACE TEMP MACRO rw_efd_sum(rel, rnk, iusers, npairs, minusers, t, k) AS
    coalesce(sum(CASE WHEN rw_within(rnk, k) AND rw_is_rel(rel, t)
                      THEN -log2(greatest(iusers, minusers)::DOUBLE / npairs) * rw_rank_discount(rnk)
                      ELSE 0.0 END), 0.0)::DOUBLE;

-- The training interactions' rows (the same on every row; NULL over no row).
CREATE OR REPLACE TEMP MACRO rw_train_rows(nrows) AS max(nrows)::DOUBLE;

-- The training interactions' data check (to_sql's train table): true, or an error naming the fault
-- (rankwise.inputs.checks.check_train's words): no row at all, NULL users, NULL items.
CREATE OR REPLACE TEMP MACRO rw_train_ok(n, null_users, null_items, user_name, item_name) AS
    CASE WHEN n = 0 THEN error('rankwise: the training interactions (train=) are empty: no (user, item) row')
         WHEN null_users > 0 THEN error('rankwise: the training interactions (train=) hold ' || CAST(null_users AS VARCHAR)
                                        || ' NULL value(s) in their user column ''' || user_name || '''')
         WHEN null_items > 0 THEN error('rankwise: the training interactions (train=) hold ' || CAST(null_items AS VARCHAR)
                                        || ' NULL value(s) in their item column ''' || item_name || '''')
         ELSE true END;

-- ==== 55_feature_diversity.sql ====

-- rankwise's feature-diversity family (rankwise/primitives/feature_diversity.py): an aggregate macro over the
-- ranked rows (rnk the rank) carrying, on each row within the cutoff, the sum of the distances between its
-- item and each item ranked above it, from the item features (dcosine: 1 - cosine similarity, 1 when a vector
-- is all zeros; dhamming: the count of the features that differ; djaccard: 1 - |A ∩ B| / |A ∪ B| of the
-- nonzero features, 0 when both are empty). Summed over the ranks <= k: the sum over the top k's pairs.

-- Σ_{rnk <= k} the row's summed distance ('cosine', 'hamming' or 'jaccard') to the items ranked above it.
CREATE OR REPLACE TEMP MACRO rw_pair_distance_sum(rnk, dcosine, dhamming, djaccard, k, distance) AS
    coalesce(sum(CASE WHEN rw_within(rnk, k)
                      THEN (CASE WHEN distance = 'cosine' THEN dcosine WHEN distance = 'hamming' THEN dhamming
                                 ELSE djaccard END)::DOUBLE
                      ELSE 0.0 END), 0.0)::DOUBLE;

-- The item features' data check (to_sql's features table): true, or an error naming the fault
-- (rankwise.inputs.features' words): no item at all, NULL items, an item given twice, empty vectors, vectors of
-- different lengths, NULL or NaN values, items the run lists without features.
CREATE OR REPLACE TEMP MACRO rw_features_ok(n, null_items, twice, empty, lengths, bad_values, unfeatured, item_name) AS
    CASE WHEN n = 0 THEN error('rankwise: the item features (features=) are empty: no item')
         WHEN null_items > 0 THEN error('rankwise: the item features (features=) hold ' || CAST(null_items AS VARCHAR)
                                        || ' NULL value(s) in their item column ''' || item_name || '''')
         WHEN twice > 0 THEN error('rankwise: the item features (features=) give ' || CAST(twice AS VARCHAR)
                                   || ' item(s) more than once; each item has one vector')
         WHEN empty > 0 THEN error('rankwise: the item features (features=) hold ' || CAST(empty AS VARCHAR)
                                   || ' empty or NULL vector(s)')
         WHEN lengths > 1 THEN error('rankwise: the item features (features=) must all have one length: they have '
                                     || CAST(lengths AS VARCHAR) || ' different lengths')
         WHEN bad_values > 0 THEN error('rankwise: the item features (features=) hold ' || CAST(bad_values AS VARCHAR)
                                        || ' NULL or NaN value(s); every value must be a number')
         WHEN unfeatured > 0 THEN error('rankwise: the run lists ' || CAST(unfeatured AS VARCHAR)
                                        || ' item(s) that have no features in the item features (features=)')
         ELSE true END;

-- ==== 58_sets.sql ====

-- The set-level primitives (rankwise.primitives.sets): aggregates over an exposure table, one row per
-- item listed within the cutoff (expo: its exposure; pos: its place by exposure ascending; incat:
-- whether it is in the catalog read; ncat: the catalog's size; irows, nrows: its training rows and the
-- training's), grouped per run or segment.

-- The listed items in the catalog (every listed item when the catalog is the listed items).
CREATE OR REPLACE TEMP MACRO rw_items_listed(expo, incat) AS
    sum(CASE WHEN incat THEN 1.0 ELSE 0.0 END)::DOUBLE;

-- The catalog's items.
CREATE OR REPLACE TEMP MACRO rw_catalog_items(ncat) AS
    max(ncat)::DOUBLE;

-- The Gini index of the exposures over the catalog's n items and the listed ones outside it, m
-- listed: (2 Σ pos·expo + (n − 2m − 1) Σ expo) / (n Σ expo); NULL over no listed item.
CREATE OR REPLACE TEMP MACRO rw_exposure_gini(expo, pos, incat, ncat) AS
    CASE WHEN sum(expo) > 0 THEN
        (2.0 * sum(pos * expo)
         + (max(ncat) + sum(CASE WHEN incat THEN 0.0 ELSE 1.0 END) - 2.0 * count(*) - 1.0) * sum(expo))
        / ((max(ncat) + sum(CASE WHEN incat THEN 0.0 ELSE 1.0 END)) * sum(expo))
    END::DOUBLE;

-- Elliot's GiniIndex over the catalog's n items, m listed: 1 − (2 Σ pos·expo + (n − 2m − 1) Σ expo) /
-- ((n − 1) Σ expo); NULL over no listed item or n ≤ 1.
CREATE OR REPLACE TEMP MACRO rw_elliot_gini(expo, pos, ncat) AS
    CASE WHEN sum(expo) > 0 AND max(ncat) > 1 THEN
        1.0 - (2.0 * sum(pos * expo) + (max(ncat) - 2.0 * count(*) - 1.0) * sum(expo)) / ((max(ncat) - 1.0) * sum(expo))
    END::DOUBLE;

-- −Σ p log_base p, p = expo / Σ expo; NULL over no listed item.
CREATE OR REPLACE TEMP MACRO rw_exposure_entropy(expo, base) AS
    CASE WHEN sum(expo) > 0 THEN (ln(sum(expo)) - sum(expo * ln(expo)) / sum(expo)) / ln(base) END::DOUBLE;

-- Σ expo.
CREATE OR REPLACE TEMP MACRO rw_exposure_total(expo) AS
    sum(expo)::DOUBLE;

-- Σ expo².
CREATE OR REPLACE TEMP MACRO rw_exposure_squares(expo) AS
    sum(expo * expo)::DOUBLE;

-- The users scored.
CREATE OR REPLACE TEMP MACRO rw_users_scored(nscored) AS
    max(nscored)::DOUBLE;

-- Σ expo · log2(Σ lists / lists).
CREATE OR REPLACE TEMP MACRO rw_elliot_entropy_sum(expo, lists) AS
    (sum(expo * -log2(lists)) + sum(expo) * log2(sum(lists)))::DOUBLE;

-- Σ expo over the items of the popularity group.
CREATE OR REPLACE TEMP MACRO rw_popularity_group_exposure(expo, ingroup) AS
    sum(CASE WHEN ingroup THEN expo ELSE 0.0 END)::DOUBLE;

-- The popularity group's training items.
CREATE OR REPLACE TEMP MACRO rw_popularity_group_items(ngroup) AS
    max(ngroup)::DOUBLE;

-- The spread (combo) of the groups' values v = expo / gsize (gmean: their mean): min/max, max/min, max − min,
-- max |v − mean|, mean |v − mean|, √(Σ v²), the population variance; NULL where a ratio divides by 0.
CREATE OR REPLACE TEMP MACRO rw_group_exposure_spread(expo, gsize, gmean, combo) AS
    CASE combo
        WHEN 'MinMaxRatio' THEN CASE WHEN max(expo / gsize) <> 0 THEN min(expo / gsize) / max(expo / gsize) END
        WHEN 'MaxMinRatio' THEN CASE WHEN min(expo / gsize) <> 0 THEN max(expo / gsize) / min(expo / gsize) END
        WHEN 'MaxMinDiff' THEN max(expo / gsize) - min(expo / gsize)
        WHEN 'MaxAbsDiff' THEN max(abs(expo / gsize - gmean))
        WHEN 'MeanAbsDev' THEN avg(abs(expo / gsize - gmean))
        WHEN 'LTwo' THEN sqrt(sum(expo / gsize * (expo / gsize)))
        WHEN 'Variance' THEN avg((expo / gsize - gmean) * (expo / gsize - gmean))
    END::DOUBLE;

-- Σ expo · −log2(irows / nrows) over the items in training.
CREATE OR REPLACE TEMP MACRO rw_self_information_sum(expo, irows, nrows) AS
    sum(CASE WHEN irows > 0 THEN -expo * log2(irows / nrows) ELSE 0.0 END)::DOUBLE;

-- The catalog's check (to_sql's catalog= table): an item at least, no NULL item.
CREATE OR REPLACE TEMP MACRO rw_catalog_ok(n, null_items) AS
    CASE WHEN n = 0 THEN error('rankwise: the catalog (catalog=) has no items')
         WHEN null_items > 0 THEN error('rankwise: the catalog (catalog=) holds ' || CAST(null_items AS VARCHAR)
                                        || ' NULL item' || CASE WHEN null_items > 1 THEN 's' ELSE '' END)
         ELSE true END;

-- ==== 60_base_run.sql ====

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

-- ==== 62_serendipity.sql ====

-- rankwise's serendipity family (rankwise/primitives/serendipity.py): an aggregate macro over the ranked rows
-- (rnk the rank, rel the relevance) carrying idense, the row's item's dense popularity rank by training rows
-- (1 for the most interacted items, 0 for an item never in training), and ncatalog, the catalog's size.

-- rectools' Serendipity numerator: Σ_{rnk <= k, relevant} max((n + 1 - rnk) / n - pu, 0), pu = (n + 1 - idense) / n
-- (0 for an item never in training), n = ncatalog; every: every row relevant.
CREATE OR REPLACE TEMP MACRO rw_serendipity_sum(rel, rnk, idense, ncatalog, t, k, every) AS
    coalesce(sum(CASE WHEN rw_within(rnk, k) AND (every OR rw_is_rel(rel, t))
                      THEN greatest((ncatalog + 1.0 - rnk) / ncatalog
                                    - CASE WHEN idense > 0 THEN (ncatalog + 1.0 - idense) / ncatalog ELSE 0.0 END,
                                    0.0)
                      ELSE 0.0 END), 0.0)::DOUBLE;

-- recommenders' serendipity numerator: Σ_{rnk <= k} (1 - sim) * r, sim the row's item's mean similarity to its user's
-- training rows (hco: co-occurrence; hcos: cosine of the features), r = [rel >= t] (every: 1 on every row); NULL
-- for a user without training rows (hlen = 0: recommenders leaves it out) and over no row.
CREATE OR REPLACE TEMP MACRO rw_cooccurrence_serendipity_sum(rel, rnk, hlen, hco, t, k, every) AS
    CASE WHEN coalesce(max(hlen), 0) > 0
         THEN coalesce(sum(CASE WHEN rw_within(rnk, k) AND (every OR rw_is_rel(rel, t)) THEN 1.0 - hco ELSE 0.0 END), 0.0)
    END::DOUBLE;

CREATE OR REPLACE TEMP MACRO rw_cosine_serendipity_sum(rel, rnk, hlen, hcos, t, k, every) AS
    CASE WHEN coalesce(max(hlen), 0) > 0
         THEN coalesce(sum(CASE WHEN rw_within(rnk, k) AND (every OR rw_is_rel(rel, t)) THEN 1.0 - hcos ELSE 0.0 END), 0.0)
    END::DOUBLE;

-- Σ_{rnk <= k} pco: the co-occurrence similarity summed over the top k's unordered pairs (recommenders' user_diversity).
CREATE OR REPLACE TEMP MACRO rw_pair_cooccurrence_sum(rnk, pco, k) AS
    coalesce(sum(CASE WHEN rw_within(rnk, k) THEN pco ELSE 0.0 END), 0.0)::DOUBLE;

-- ==== 65_categories.sql ====

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

-- ==== 70_fairness.sql ====

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

-- ==== 90_evaluate.sql ====

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
